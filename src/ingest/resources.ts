/** The items resource (names, tiers, NPC sell prices) and the election resource (mayor, perks, candidates). */
import type { CatalogItem } from '../store/repositories/items.ts';
import { feedSource, SkipLog, type IngestContext } from './context.ts';
import { check } from './upstream.ts';

export class ResourcesIngester {
  private itemsUpdated = 0;
  private electionUpdated = 0;

  constructor(private readonly ctx: IngestContext) {}

  async pollItems(): Promise<{ items: number; skipped: Record<string, number> } | 'unchanged'> {
    const res = await this.ctx.client.getJson('/v2/resources/skyblock/items');
    if (!check.items.Check(res.body)) throw new Error('items resource: malformed envelope');
    const payload = res.body;
    if (payload.lastUpdated <= this.itemsUpdated) return 'unchanged';
    const skips = new SkipLog(this.ctx, 'items');
    const items: CatalogItem[] = [];
    for (const raw of payload.items) {
      if (!check.item.Check(raw)) {
        skips.skip('invalid', { id: (raw as { id?: unknown })?.id });
        continue;
      }
      items.push({
        tag: raw.id,
        name: raw.name.replace(/§./g, ''),
        // The resource omits tier for COMMON items.
        tier: raw.tier ?? 'COMMON',
        category: raw.category ?? null,
        npcSellPrice: raw.npc_sell_price ?? null,
      });
    }
    const now = this.ctx.clock.now();
    await this.ctx.store.transaction(async (trx) => {
      await this.ctx.store.items.upsertMany(items, now, trx);
      await this.ctx.store.feeds.record(
        { name: 'items', lastUpdated: payload.lastUpdated, storedAt: now, records: items.length, source: feedSource(this.ctx) },
        trx,
      );
    });
    this.itemsUpdated = payload.lastUpdated;
    // The spine: the views that read the items (catalog, flips) learn of it without polling.
    if (this.ctx.store.changes.subscribers > 0) this.ctx.store.changes.publish({ kind: 'resource', resource: 'items', lastUpdated: payload.lastUpdated });
    this.ctx.metrics.records.inc({ feed: 'items', outcome: 'stored' }, items.length);
    this.ctx.metrics.cycles.inc({ feed: 'items', outcome: 'applied' });
    return { items: items.length, skipped: skips.counts };
  }

  async pollElection(): Promise<{ year: number; mayor: string } | 'unchanged'> {
    const res = await this.ctx.client.getJson('/v2/resources/skyblock/election');
    return this.applyElection(res.body);
  }

  /**
   * Stores one election resource. Live polls record the mayor as seen now; replayed history
   * (`seenAt: 'payload'`) as seen at the payload's own `lastUpdated`, so past terms get their real end.
   */
  async applyElection(body: unknown, seenAt: 'now' | 'payload' = 'now'): Promise<{ year: number; mayor: string } | 'unchanged'> {
    if (!check.election.Check(body)) throw new Error('election resource: malformed envelope');
    const payload = body;
    if (payload.lastUpdated <= this.electionUpdated) return 'unchanged';
    const year = payload.mayor.election?.year;
    if (year === undefined) throw new Error('election resource: mayor without election year');
    const now = this.ctx.clock.now();
    const updatedAt = seenAt === 'payload' ? payload.lastUpdated : now;
    await this.ctx.store.transaction(async (trx) => {
      await this.ctx.store.elections.upsert(
        { year, mayorKey: payload.mayor.key, mayorName: payload.mayor.name, payload: payload as unknown as Record<string, unknown>, updatedAt },
        trx,
      );
      await this.ctx.store.feeds.record(
        { name: 'election', lastUpdated: payload.lastUpdated, storedAt: now, records: 1, source: feedSource(this.ctx) },
        trx,
      );
    });
    this.electionUpdated = payload.lastUpdated;
    if (this.ctx.store.changes.subscribers > 0) this.ctx.store.changes.publish({ kind: 'resource', resource: 'election', lastUpdated: payload.lastUpdated });
    this.ctx.metrics.cycles.inc({ feed: 'election', outcome: 'applied' });
    return { year, mayor: payload.mayor.key };
  }
}
