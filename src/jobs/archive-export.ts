/**
 * The archive export worker: claims pending export jobs (Pending → InProgress), writes a
 * CSV of the matching sold auctions and uploads it to the job's chat webhook as a file
 * in the Discord webhook format (multipart: `payload_json` + `files[0]`), then marks the
 * job Done or Failed. The webhook URL is checked against the allow-list again right
 * before sending and redirects are not followed, so no other target is ever contacted.
 */
import type { Clock } from '../clock.ts';
import { compileFiltersResolving } from '../domain/filters.ts';
import { allowedWebhook, csvLine } from '../domain/webhooks.ts';
import { EXPORT_COLUMNS, INVENTORY_COLUMNS, SOCIAL_COLUMNS, type ExportColumn } from '../domain/archive-export.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { AuctionRecord } from '../domain/auction-records.ts';
import type { ExportJob } from '../domain/export-jobs.ts';

/** Ends a job that was aborted or deleted while it ran. */
class ExportAborted extends Error {}
/** Rows per export; larger windows are cut (and the message says so). */
export const MAX_EXPORT_ROWS = 200_000;
/** Sales read between two checks that the job still runs. */
const CHUNK = 5000;

export interface ArchiveExportOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** EXPORT_WEBHOOK_HOSTS */
  allowList: readonly string[];
  /** injectable for tests; default global fetch */
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** ms a running job may go without a sign of life before another worker takes it (EXPORT_LEASE_SECONDS) */
  leaseMs?: number;
}

const iso = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString());

function cell(r: AuctionRecord, column: ExportColumn): string | number | boolean | null {
  switch (column) {
    case 'uuid':
      return r.uuid;
    case 'itemTag':
      return r.tag;
    case 'itemName':
      return r.itemName;
    case 'highestBidAmount':
      return r.soldPrice ?? r.highestBid;
    case 'bin':
      return r.bin;
    case 'startedAt':
      return iso(r.start);
    case 'endedAt':
      return iso(r.soldAt ?? r.end);
    case 'sellerUuid':
      return r.seller;
    case 'highestBidderUuid':
      return r.buyer;
    case 'itemUid':
      return r.itemUid;
  }
}

export class ArchiveExportWorker {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ArchiveExportOptions) {
    this.fetch = options.fetch ?? fetch;
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 300_000;
  }

  /** Takes back jobs whose worker died, then works off every pending job; returns how many were processed. */
  async runOnce(): Promise<number> {
    const reclaimed = await this.options.store.exportJobs.reclaimExpired(this.options.clock.now(), this.leaseMs);
    if (reclaimed > 0) this.options.logger.warn({ jobs: reclaimed }, 'export jobs whose worker stopped were taken back');
    let n = 0;
    for (;;) {
      const job = await this.options.store.exportJobs.claimNext(this.options.clock.now());
      if (!job) return n;
      await this.process(job);
      n++;
    }
  }

  private async process(job: ExportJob): Promise<void> {
    const { store, clock, logger } = this.options;
    const target = allowedWebhook(job.webhookUrl, this.options.allowList);
    if (!target) {
      await store.exportJobs.finish(job.id, { status: 'Failed', at: clock.now(), error: 'webhook target is not on the allow-list' });
      logger.warn({ job: job.id }, 'export job refused: webhook not allowed');
      return;
    }
    try {
      const { csv, rows, truncated } = await this.buildCsv(job);
      const after = Number(job.filters['EndAfter']) * 1000;
      const before = Number(job.filters['EndBefore']) * 1000;
      const content =
        `skymarket export #${job.id}: ${rows} sold ${job.itemTag} auctions between ${iso(after)} and ${iso(before)}` +
        (truncated ? ` (cut at ${MAX_EXPORT_ROWS} rows)` : '') +
        '. Data: skymarket (attribution required).';
      // The last chance to honour an abort: nothing is sent for an aborted or deleted job.
      if (!(await store.exportJobs.renew(job.id, clock.now()))) throw new ExportAborted();
      await this.deliver(target, content, { name: `skymarket-export-${job.itemTag}-${job.id}.csv`, body: csv });
      await store.exportJobs.finish(job.id, { status: 'Done', at: clock.now(), rowCount: rows });
      logger.info({ job: job.id, rows }, 'export job delivered');
    } catch (err) {
      if (err instanceof ExportAborted) {
        logger.info({ job: job.id }, 'export job aborted');
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      await store.exportJobs.finish(job.id, { status: 'Failed', at: clock.now(), error: message.slice(0, 500) });
      logger.warn({ job: job.id, err: message }, 'export job failed');
    }
  }

  /** The CSV of the job's sold auctions, newest first; throws ExportAborted when the job stops running. */
  async buildCsv(job: ExportJob): Promise<{ csv: string; rows: number; truncated: boolean }> {
    const { store, clock } = this.options;
    const filter = await compileFiltersResolving(job.filters, async (name) => (await store.playerNames.findByName(name))?.playerUuid);
    const since = Number(job.filters['EndAfter']) * 1000;
    const until = Number(job.filters['EndBefore']) * 1000;
    const columns = (job.columns.length ? job.columns : EXPORT_COLUMNS).filter((c): c is ExportColumn => (EXPORT_COLUMNS as readonly string[]).includes(c));
    const flags = new Set(job.flags.split(',').map((f) => f.trim()));
    const social = flags.has('IncludeSocial');
    const inventory = flags.has('InventoryCheck');
    const header: string[] = [...columns, ...(social ? SOCIAL_COLUMNS : []), ...(inventory ? INVENTORY_COLUMNS : [])];
    const unique = flags.has('UniqueItems');
    const seenUids = new Set<string>();
    const parts: string[] = [csvLine(header)];
    let rows = 0;
    let truncated = false;
    let scanned = 0;
    let checked = 0;
    for await (const chunk of store.auctionQueries.soldChunks({ tag: job.itemTag, since, until })) {
      // Whether the job was aborted, about every CHUNK sales read; this also renews its lease.
      if (scanned - checked >= CHUNK) {
        checked = scanned;
        if (!(await store.exportJobs.renew(job.id, clock.now()))) throw new ExportAborted();
      }
      scanned += chunk.length;
      const kept: AuctionRecord[] = [];
      for (const r of chunk) {
        if (!filter.test({ ...r, end: r.soldAt ?? r.end, sold: true })) continue;
        if (unique && r.itemUid) {
          if (seenUids.has(r.itemUid)) continue;
          seenUids.add(r.itemUid);
        }
        if (rows + kept.length >= MAX_EXPORT_ROWS) {
          truncated = true;
          break;
        }
        kept.push(r);
      }
      const extras = await this.extraCells(kept, social, inventory);
      kept.forEach((r, i) => parts.push(csvLine([...columns.map((c) => cell(r, c)), ...extras[i]!])));
      rows += kept.length;
      if (truncated) break;
    }
    return { csv: parts.join(''), rows, truncated };
  }

  /** The IncludeSocial / InventoryCheck cells of each record, in order. */
  private async extraCells(records: readonly AuctionRecord[], social: boolean, inventory: boolean): Promise<Array<Array<string | number | boolean>>> {
    const { store } = this.options;
    const out = records.map(() => [] as Array<string | number | boolean>);
    if (records.length === 0) return out;
    if (social) {
      const names = await store.playerNames.namesOf(records.flatMap((r) => (r.buyer ? [r.seller, r.buyer] : [r.seller])));
      records.forEach((r, i) => out[i]!.push(names.get(r.seller) ?? '', r.buyer ? (names.get(r.buyer) ?? '') : ''));
    }
    if (inventory) {
      const uids = [...new Set(records.flatMap((r) => (r.itemUid ? [r.itemUid] : [])))];
      const [listed, sales] = uids.length
        ? await Promise.all([store.auctionQueries.activeItemUids(uids), store.auctionQueries.salesByItemUid(uids)])
        : [new Set<string>(), []];
      const byUid = new Map<string, number[]>();
      for (const s of sales) if (s.itemUid) byUid.set(s.itemUid, [...(byUid.get(s.itemUid) ?? []), s.at]);
      records.forEach((r, i) => {
        const at = r.soldAt ?? r.end;
        const later = r.itemUid ? (byUid.get(r.itemUid) ?? []).filter((t) => t > at).length : 0;
        out[i]!.push(r.itemUid ? listed.has(r.itemUid) : false, later);
      });
    }
    return out;
  }

  /** One multipart POST in the Discord webhook format; redirects are refused. */
  private async deliver(target: URL, content: string, file: { name: string; body: string }): Promise<void> {
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content, attachments: [{ id: 0, filename: file.name }] }));
    form.append('files[0]', new Blob([file.body], { type: 'text/csv' }), file.name);
    const res = await this.fetch(target, {
      method: 'POST',
      body: form,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) throw new Error(`webhook answered ${res.status}`);
  }
}
