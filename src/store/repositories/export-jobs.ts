/** Archive export jobs: created by the API, claimed and finished by the export worker. */
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database, ExportJobsTable, ExportStatus } from '../schema.ts';
import type { ExportJob } from '../../domain/export-jobs.ts';

export type { ExportJob } from '../../domain/export-jobs.ts';

/** What the API gives for a new job: the job's own fields before a worker ran it. */
export type NewExportJob = Pick<ExportJob, 'accountId' | 'itemTag' | 'flags' | 'filters' | 'columns' | 'webhookUrl' | 'requestedAt'>;

type Row = Omit<ExportJobsTable, 'id' | 'attempts'> & { id: number; attempts: number };

/** A job that took this many workers down (each lease expired while it ran) is failed instead of retried. */
export const MAX_EXPORT_ATTEMPTS = 3;

function parse<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

function toJob(r: Row): ExportJob {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    itemTag: r.item_tag,
    flags: r.flags,
    filters: parse<Record<string, string>>(r.filters),
    columns: parse<string[]>(r.columns),
    webhookUrl: r.webhook_url,
    status: r.status,
    requestedAt: Number(r.requested_at),
    startedAt: r.started_at === null ? null : Number(r.started_at),
    completedAt: r.completed_at === null ? null : Number(r.completed_at),
    rowCount: r.row_count,
    error: r.error,
  };
}

export class ExportJobRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(job: NewExportJob): Promise<ExportJob> {
    const row = await this.db
      .insertInto('export_jobs')
      .values({
        account_id: job.accountId,
        item_tag: job.itemTag,
        flags: job.flags,
        filters: JSON.stringify(job.filters),
        columns: JSON.stringify(job.columns),
        webhook_url: job.webhookUrl,
        status: 'Pending',
        requested_at: job.requestedAt,
        started_at: null,
        completed_at: null,
        row_count: null,
        error: null,
        heartbeat_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toJob(row);
  }

  /**
   * Jobs of an account that are waiting or running (the queue cap counts these); a running job
   * whose lease ended `leaseMs` after its last sign of life is not counted (its worker died).
   */
  async countQueued(accountId: number, now: number, leaseMs: number): Promise<number> {
    const row = await this.db
      .selectFrom('export_jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('status', '=', 'Pending'), eb.and([eb('status', '=', 'InProgress'), eb(eb.fn.coalesce('heartbeat_at', 'started_at'), '>=', now - leaseMs)])]))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async forAccount(accountId: number, limit = 50): Promise<ExportJob[]> {
    const rows = await this.db
      .selectFrom('export_jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('requested_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toJob);
  }

  async get(id: number): Promise<ExportJob | undefined> {
    const row = await this.db.selectFrom('export_jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toJob(row) : undefined;
  }

  /** Claims the oldest pending job (Pending → InProgress); undefined when none. Safe with several workers. */
  async claimNext(now: number): Promise<ExportJob | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const next = await this.db
        .selectFrom('export_jobs')
        .select('id')
        .where('status', '=', 'Pending')
        .orderBy('requested_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (!next) return undefined;
      const claimed = await this.db
        .updateTable('export_jobs')
        .set((eb) => ({ status: 'InProgress', started_at: now, heartbeat_at: now, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', next.id)
        .where('status', '=', 'Pending')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 1) return this.get(Number(next.id));
    }
    return undefined;
  }

  /**
   * Finishes a running job; false (and nothing written) when it is no longer InProgress
   * (aborted or deleted meanwhile), so an abort is never overwritten.
   */
  async finish(id: number, outcome: { status: 'Done' | 'Failed'; at: number; rowCount?: number; error?: string }): Promise<boolean> {
    const r = await this.db
      .updateTable('export_jobs')
      .set({ status: outcome.status, completed_at: outcome.at, row_count: outcome.rowCount ?? null, error: outcome.error ?? null })
      .where('id', '=', id)
      .where('status', '=', 'InProgress')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Pending/InProgress → Aborted for the owner; false when not the owner's or already finished. */
  async abort(id: number, accountId: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('export_jobs')
      .set({ status: 'Aborted', completed_at: now, error: 'aborted by the owner' })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', 'in', ['Pending', 'InProgress'])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Removes the owner's job in any state (a running one stops at its next check); false when not found. */
  async delete(id: number, accountId: number): Promise<boolean> {
    const r = await this.db.deleteFrom('export_jobs').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /**
   * Renews the lease of a running job; false when it is no longer running (aborted or deleted:
   * the worker checks between chunks to honour that).
   */
  async renew(id: number, now: number): Promise<boolean> {
    const r = await this.db.updateTable('export_jobs').set({ heartbeat_at: now }).where('id', '=', id).where('status', '=', 'InProgress').executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Jobs left InProgress by a worker that stopped (no sign of life for `leaseMs`) go back to
   * Pending, or fail after MAX_EXPORT_ATTEMPTS; answers how many were taken back.
   */
  async reclaimExpired(now: number, leaseMs: number): Promise<number> {
    const expired = (eb: ExpressionBuilder<Database, 'export_jobs'>) => eb.and([eb('status', '=', 'InProgress'), eb(eb.fn.coalesce('heartbeat_at', 'started_at'), '<', now - leaseMs)]);
    const failed = await this.db
      .updateTable('export_jobs')
      .set({ status: 'Failed', completed_at: now, error: `the worker stopped while running it ${MAX_EXPORT_ATTEMPTS} times` })
      .where(expired)
      .where('attempts', '>=', MAX_EXPORT_ATTEMPTS)
      .executeTakeFirst();
    const requeued = await this.db.updateTable('export_jobs').set({ status: 'Pending', started_at: null, heartbeat_at: null }).where(expired).executeTakeFirst();
    return Number(failed.numUpdatedRows) + Number(requeued.numUpdatedRows);
  }
}
