/**
 * An archive export job as the API shows it and the export worker runs it (the store keeps them:
 * store/repositories/export-jobs.ts). Here so faces name it without importing store/.
 */
export type ExportStatus = 'Pending' | 'InProgress' | 'Done' | 'Failed' | 'Aborted';

export interface ExportJob {
  id: number;
  accountId: number;
  itemTag: string;
  flags: string;
  filters: Record<string, string>;
  columns: string[];
  webhookUrl: string;
  status: ExportStatus;
  requestedAt: number;
  startedAt: number | null;
  completedAt: number | null;
  rowCount: number | null;
  error: string | null;
}
