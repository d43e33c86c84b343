/**
 * Underpriced listings, live (issue 43, docs/flips.md): every new BIN listing of a committed
 * auctions generation is valued as it arrives (the valuation service, at most MAX_VALUED_PER_BATCH
 * per generation, so one generation's work is bounded) and kept in the ranked list when the rule
 * (domain/flips/underpriced.ts) holds; listings that sell or end leave it. It follows the market's
 * events in the process that has both them and the valuation (role all).
 *
 * It is also the alert evaluator's value source (domain/alerts `ValueSource`): `prepare(batch)`
 * values the batch once (the same promise for the list and the evaluator), after which `valueOf`
 * answers synchronously from that batch's values.
 */
import type { ValueSource } from '../domain/alerts/index.ts';
import { underpricedVerdict, UnderpricedList, type UnderpricedListing, type UnderpricedRule, type ValuedListing } from '../domain/flips/underpriced.ts';
import type { DraftEvent } from '../domain/stream-events.ts';
import { BatchQueue, type BatchEmitter } from '../market/batch-queue.ts';
import type { ListingValue, ValuationService } from './valuation.ts';

type AuctionNew = Extract<DraftEvent, { topic: 'auction.new' }>;

/** Most new listings valued per generation (the rest are counted as skipped). */
export const MAX_VALUED_PER_BATCH = 2_000;

export interface UnderpricedTotals {
  valued: number;
  kept: number;
  /** over MAX_VALUED_PER_BATCH, or no longer active when valued */
  skipped: number;
  failed: number;
  left: number;
}

export class UnderpricedService implements ValueSource {
  private readonly list = new UnderpricedList();
  private readonly prepared = new WeakMap<readonly DraftEvent[], Promise<void>>();
  /** the values of the latest batches' listings, oldest first (the evaluator reads its batch's right after `prepare`) */
  private readonly values = new Map<string, ValuedListing>();
  private readonly batches = new BatchQueue();
  /** when the list last took a generation (null: none yet) */
  computedAt: number | null = null;
  readonly totals: UnderpricedTotals = { valued: 0, kept: 0, skipped: 0, failed: 0, left: 0 };
  /** told each batch's kept listings as `auction.underpriced` events (compose.ts publishes them on the live feed) */
  onKept: ((events: DraftEvent[]) => void) | undefined;

  constructor(
    private readonly valuation: Pick<ValuationService, 'valueListings'>,
    readonly rule: UnderpricedRule,
    /**
     * Whether a listing is still active (the active-auctions view, which resynchronises on a hole in the
     * spine): the ranking shows only those, so a listing whose sale this process never heard of (a
     * replica's hole) is not served; it leaves the list when the ranking meets it.
     */
    private readonly isActive: (uuid: string) => boolean = () => true,
  ) {}

  /** Follows the market's events (market/events.ts): each batch in order. */
  attach(emitter: BatchEmitter): void {
    this.batches.attach(emitter, (batch) => void this.prepare(batch));
  }

  stop(): Promise<void> {
    return this.batches.stop();
  }

  /** Resolves once every batch received so far was taken. */
  idle(): Promise<void> {
    return this.batches.idle();
  }

  /**
   * Takes one batch (once, whoever asks first): values its new BIN listings, keeps the underpriced,
   * drops those that left. Batches are taken one at a time in the order first asked (the follower
   * asks as each is emitted), so a listing never leaves before it was kept.
   */
  prepare(batch: readonly DraftEvent[]): Promise<void> {
    let done = this.prepared.get(batch);
    if (!done) {
      // A failed batch is lost, not the ones after it (take counts its own failures; this is a guard).
      done = this.batches.run(() => this.take(batch));
      this.prepared.set(batch, done);
    }
    return done;
  }

  /** The stack's value of a listing of the batch prepared last, when it rests on enough comparables. */
  valueOf(subject: { uuid: string }): number | undefined {
    const v = this.values.get(subject.uuid);
    return v && v.value !== null && v.value > 0 && v.comparables >= this.rule.minComparables ? v.value : undefined;
  }

  /** The kept listings, highest expected profit first, optionally of one tag and above a profit. */
  ranked(query: { tag?: string; minProfit?: number; limit: number }): UnderpricedListing[] {
    const out: UnderpricedListing[] = [];
    const gone: string[] = [];
    for (const l of this.list.ranked()) {
      if (out.length >= query.limit) break;
      if (query.minProfit !== undefined && l.profit < query.minProfit) break;
      if (query.tag !== undefined && l.tag !== query.tag) continue;
      if (!this.isActive(l.uuid)) {
        gone.push(l.uuid);
        continue;
      }
      out.push(l);
    }
    for (const uuid of gone) if (this.list.remove(uuid)) this.totals.left++;
    return out;
  }

  get size(): number {
    return this.list.size;
  }

  private async take(batch: readonly DraftEvent[]): Promise<void> {
    const fresh: AuctionNew[] = [];
    for (const event of batch) {
      if (event.topic !== 'auction.new' || !event.bin) continue;
      if (fresh.length >= MAX_VALUED_PER_BATCH) this.totals.skipped++;
      else fresh.push(event);
    }
    const values = fresh.length > 0 ? await this.valuesOf(fresh) : [];
    const keptEvents: DraftEvent[] = [];
    fresh.forEach((event, i) => {
      const lv = values[i];
      if (lv === null) return; // counted as failed
      if (!lv) {
        this.totals.skipped++;
        return;
      }
      this.totals.valued++;
      const c = lv.valued.valuation.comparables;
      const valued: ValuedListing = {
        uuid: event.uuid,
        tag: event.tag,
        itemName: event.item.itemName,
        count: event.item.count,
        price: event.price,
        value: lv.value,
        confidence: lv.valued.valuation.combined.confidence,
        feeRate: lv.feeRate,
        comparables: c.count,
        medianKey: c.medianKey,
        at: event.time,
      };
      this.remember(valued);
      const kept = underpricedVerdict(valued, this.rule);
      if (kept) {
        this.list.add(kept);
        this.totals.kept++;
        keptEvents.push({ ...event, topic: 'auction.underpriced', value: kept.value, valueAfterFees: kept.valueAfterFees, profit: kept.profit, percentBelow: Math.round(kept.shareBelow * 1000) / 10, confidence: kept.confidence, comparables: kept.comparables, medianKey: kept.medianKey });
      }
    });
    if (keptEvents.length > 0) this.onKept?.(keptEvents);
    // Listings that left, in the batch's order after its new ones (a listing never leaves in the batch that lists it).
    for (const event of batch) {
      if (event.topic === 'auction.sold' || event.topic === 'auction.ended') {
        if (this.list.remove(event.uuid)) this.totals.left++;
      } else if (event.topic === 'generation') this.computedAt = event.time;
    }
  }

  /** The listings' values in one pass; if that fails (untrusted item data), one by one, a failing listing null (counted, skipped). */
  private async valuesOf(events: readonly AuctionNew[]): Promise<Array<ListingValue | undefined | null>> {
    try {
      return await this.valuation.valueListings(events.map((e) => e.uuid));
    } catch {
      const out: Array<ListingValue | undefined | null> = [];
      for (const e of events) {
        try {
          out.push((await this.valuation.valueListings([e.uuid]))[0]);
        } catch {
          this.totals.failed++;
          out.push(null);
        }
      }
      return out;
    }
  }

  private remember(v: ValuedListing): void {
    this.values.set(v.uuid, v);
    // A few generations' worth: enough for the evaluator, which reads a batch right after it was taken.
    if (this.values.size > 4 * MAX_VALUED_PER_BATCH) this.values.delete(this.values.keys().next().value!);
  }
}
