/**
 * The alert index (issue 47): every subscription filed under what it watches (a tag, a bazaar
 * product, a seller), so evaluating a batch of events costs a lookup per event plus the
 * subscriptions of that key, not a loop over every subscription per event. Pure: the evaluator
 * (jobs/alert-evaluator.ts) feeds it the live feed's events of each committed change.
 */
import { compileFilters, type CompiledFilter, type FilterSubject } from '../filters.ts';
import { subjectOf, type DraftEvent } from '../stream-events.ts';
import type { AlertKind, AlertSpec, AlertSubscription, BazaarSide, Direction } from './spec.ts';

/** One alert due: what the delivery sends to each of the subscription's targets. */
export interface AlertDraft {
  /** the idempotency key: unique per subscription and triggering fact; a receiver may drop a repeat */
  key: string;
  subscriptionId: number;
  accountId: number;
  kind: AlertKind;
  /** when the change was seen (ms) */
  at: number;
  title: string;
  /** item tag or bazaar product */
  tag: string;
  itemName: string | null;
  price: number;
  /** the auction's uuid for listing alerts */
  auctionUuid: string | null;
  /** what the price was compared with: the threshold, the median, the value */
  reference: number | null;
}

/** Where a listing's value comes from (services/underpriced.ts over the valuation). */
export interface ValueSource {
  /** values a batch's listings before `valueOf` is asked about them (the valuation is asynchronous, the evaluation is not) */
  prepare?(events: readonly DraftEvent[]): Promise<void>;
  /** the item's estimated value, undefined when there is none */
  valueOf(subject: FilterSubject & { uuid: string }): number | undefined;
}

/** A bazaar product's median price per side (domain/alerts/medians.ts, or a store-backed source). */
export interface MedianSource {
  median(product: string, side: BazaarSide): number | undefined;
}

export interface EvaluationContext {
  now: number;
  medians?: MedianSource;
  values?: ValueSource;
}

export interface EvaluationCounts {
  /** subscriptions looked at (those filed under the events' keys) */
  checked: number;
  matched: number;
  /** matches dropped by the subscription's minimum interval */
  rateLimited: number;
}

interface Entry {
  sub: AlertSubscription;
  filter: CompiledFilter | null;
}

function push<K>(map: Map<K, Entry[]>, key: K, entry: Entry): void {
  const list = map.get(key);
  if (list) list.push(entry);
  else map.set(key, [entry]);
}

function crossed(direction: Direction, value: number, threshold: number): boolean {
  return direction === 'below' ? value <= threshold : value >= threshold;
}

/** 1234567 → "1,234,567" (toLocaleString costs ~10 µs a call: thousands of alerts a generation add up). */
function fmt(n: number): string {
  const digits = String(Math.round(Math.abs(n)));
  let out = '';
  for (let i = digits.length; i > 0; i -= 3) out = i > 3 ? `,${digits.slice(i - 3, i)}${out}` : `${digits.slice(0, i)}${out}`;
  return n < 0 ? `-${out}` : out;
}

export class AlertIndex {
  /** listing and underpriced subscriptions by tag */
  private readonly listings = new Map<string, Entry[]>();
  private readonly lowestBins = new Map<string, Entry[]>();
  private readonly products = new Map<string, Entry[]>();
  private readonly sellers = new Map<string, Entry[]>();
  /** subscription → when it last fired (ms): its own rate limit */
  private readonly lastFired = new Map<number, number>();
  /** bazaar subscriptions: whether their condition held at the last snapshot (alerts fire on the turn) */
  private readonly holding = new Map<number, boolean>();
  /** subscriptions whose filters no longer compile (e.g. a filter retired since): skipped, counted */
  unusable = 0;
  size = 0;

  constructor(subscriptions: Iterable<AlertSubscription> = []) {
    this.replace(subscriptions);
  }

  /** Replaces the subscriptions (a reload), keeping the rate-limit and condition state of those kept. */
  replace(subscriptions: Iterable<AlertSubscription>): void {
    for (const map of [this.listings, this.lowestBins, this.products, this.sellers]) map.clear();
    const kept = new Set<number>();
    this.unusable = 0;
    this.size = 0;
    for (const sub of subscriptions) {
      kept.add(sub.id);
      this.size++;
      const spec = sub.spec;
      let filter: CompiledFilter | null = null;
      if ((spec.kind === 'listing' || spec.kind === 'underpriced') && Object.keys(spec.filters).length > 0) {
        try {
          filter = compileFilters(spec.filters);
        } catch {
          this.unusable++;
          continue;
        }
      }
      const entry = { sub, filter };
      switch (spec.kind) {
        case 'listing':
        case 'underpriced':
          push(this.listings, spec.tag, entry);
          break;
        case 'lowest_bin':
          push(this.lowestBins, spec.tag, entry);
          break;
        case 'bazaar_price':
        case 'bazaar_median':
          push(this.products, spec.product, entry);
          break;
        case 'player_auctions':
          push(this.sellers, spec.player, entry);
          break;
      }
    }
    for (const id of this.lastFired.keys()) if (!kept.has(id)) this.lastFired.delete(id);
    for (const id of this.holding.keys()) if (!kept.has(id)) this.holding.delete(id);
  }

  /** The alerts `events` (one committed change's live-feed events) make due, in event order. */
  evaluate(events: readonly DraftEvent[], ctx: EvaluationContext, counts?: EvaluationCounts): AlertDraft[] {
    const out: AlertDraft[] = [];
    /** Whether `entry` may fire now (its minimum interval), recording it when it may. */
    const may = (entry: Entry): boolean => {
      if (counts) counts.matched++;
      const last = this.lastFired.get(entry.sub.id);
      if (last !== undefined && ctx.now - last < entry.sub.minIntervalMs) {
        if (counts) counts.rateLimited++;
        return false;
      }
      this.lastFired.set(entry.sub.id, ctx.now);
      return true;
    };
    // One object shape for every alert, built only once it may fire (the title is the costly part).
    const fire = (entry: Entry, key: string, title: () => string, tag: string, itemName: string | null, price: number, auctionUuid: string | null, reference: number | null): void => {
      if (!may(entry)) return;
      out.push({ key, subscriptionId: entry.sub.id, accountId: entry.sub.accountId, kind: entry.sub.spec.kind, at: ctx.now, title: title(), tag, itemName, price, auctionUuid, reference });
    };
    for (const event of events) {
      switch (event.topic) {
        case 'auction.new': {
          const byTag = this.listings.get(event.tag);
          const bySeller = this.sellers.get(event.seller);
          if (!byTag && !bySeller) break;
          const subject = subjectOf(event)!;
          for (const entry of byTag ?? []) {
            if (counts) counts.checked++;
            const spec = entry.sub.spec;
            if (spec.kind === 'listing') {
              if (spec.binOnly && !event.bin) continue;
              if (spec.maxPrice !== undefined && event.price > spec.maxPrice) continue;
              if (entry.filter && !entry.filter.test(subject)) continue;
              fire(entry, `${entry.sub.id}:listing:${event.uuid}`, () => `${event.item.itemName} listed for ${fmt(event.price)} coins`, event.tag, event.item.itemName, event.price, event.uuid, spec.maxPrice ?? null);
            } else if (spec.kind === 'underpriced') {
              if (!event.bin || !ctx.values) continue;
              if (entry.filter && !entry.filter.test(subject)) continue;
              const value = ctx.values.valueOf({ ...subject, uuid: event.uuid });
              if (value === undefined || !(value > 0) || event.price > value * (1 - spec.percent / 100)) continue;
              fire(entry, `${entry.sub.id}:underpriced:${event.uuid}`, () => `${event.item.itemName} listed for ${fmt(event.price)} coins, ${Math.round((1 - event.price / value) * 100)} % below its value of ${fmt(value)}`, event.tag, event.item.itemName, event.price, event.uuid, value);
            }
          }
          for (const entry of bySeller ?? []) {
            if (counts) counts.checked++;
            fire(entry, `${entry.sub.id}:player:${event.uuid}`, () => `The player listed ${event.item.itemName} for ${fmt(event.price)} coins`, event.tag, event.item.itemName, event.price, event.uuid, null);
          }
          break;
        }
        case 'lbin.changed': {
          const entries = this.lowestBins.get(event.tag);
          const newPrice = event.newPrice;
          if (!entries || newPrice === null) break;
          for (const entry of entries) {
            if (counts) counts.checked++;
            const spec = entry.sub.spec;
            if (spec.kind !== 'lowest_bin') continue;
            if (spec.variant !== undefined && spec.variant !== event.variant) continue;
            const now = crossed(spec.direction, newPrice, spec.threshold);
            const before = event.oldPrice !== null && crossed(spec.direction, event.oldPrice, spec.threshold);
            if (!now || before) continue;
            fire(entry, `${entry.sub.id}:lbin:${event.tag}:${event.variant ?? ''}:${event.time}`, () => `Lowest BIN of ${event.listing?.item.itemName ?? event.tag} ${spec.direction === 'below' ? 'fell to' : 'rose to'} ${fmt(newPrice)} coins (threshold ${fmt(spec.threshold)})`, event.tag, event.listing?.item.itemName ?? null, newPrice, event.listing?.uuid ?? null, spec.threshold);
          }
          break;
        }
        case 'bazaar.changed': {
          const entries = this.products.get(event.product);
          if (!entries) break;
          for (const entry of entries) {
            if (counts) counts.checked++;
            const spec = entry.sub.spec;
            if (spec.kind !== 'bazaar_price' && spec.kind !== 'bazaar_median') continue;
            const price = spec.side === 'buy' ? event.buyPrice : event.sellPrice;
            let reference: number | undefined;
            let holds: boolean;
            if (spec.kind === 'bazaar_price') {
              reference = spec.threshold;
              holds = price > 0 && crossed(spec.direction, price, spec.threshold);
            } else {
              reference = ctx.medians?.median(event.product, spec.side);
              holds = reference !== undefined && reference > 0 && price > 0 && crossed(spec.direction, ((price - reference) / reference) * 100, spec.direction === 'below' ? -spec.percent : spec.percent);
            }
            const held = this.holding.get(entry.sub.id) ?? false;
            this.holding.set(entry.sub.id, holds);
            if (!holds || held) continue;
            const side = spec.side === 'buy' ? 'instant-buy' : 'instant-sell';
            fire(entry, `${entry.sub.id}:bazaar:${event.product}:${event.time}`, () =>
                spec.kind === 'bazaar_price'
                  ? `${event.product} ${side} price ${spec.direction === 'below' ? 'fell to' : 'rose to'} ${price.toFixed(1)} (threshold ${spec.threshold})`
                  : `${event.product} ${side} price ${price.toFixed(1)} is ${Math.abs(Math.round(((price - reference!) / reference!) * 100))} % ${spec.direction} its median ${reference!.toFixed(1)}`, event.product, null, price, null, reference ?? null);
          }
          break;
        }
        default:
          break;
      }
    }
    return out;
  }
}

export type { AlertSpec };
