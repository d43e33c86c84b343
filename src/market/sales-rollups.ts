/**
 * Keeps the sales rollups (store.saleRollups, domain/sales-rollup.ts) current: rolls every closed
 * hour of sales up, one hour at a time (memory bounded by an hour's sales, the event loop given
 * back between hours), and moves the 7- and 14-day windows. Any process may call `catchUp`; the
 * store's compare-and-set lets exactly one of them roll each hour.
 *
 * Then reads, for the auction-driven flips, the variants of a kind that sold often enough in a
 * window, with their prices: the rolled-up hours plus the sales after the last rolled hour
 * (at most RAW_TAIL_MS of them), never every sale of the window.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { RollupState, SalesWindow } from '../store/repositories/sale-rollups.ts';
import type { VariantModifiers } from '../domain/flips/attribute.ts';
import { digestPoints, hourOf, HOUR_MS, rollSales, saleVariants, type SoldItem, type VariantKind, type WeightedPrice } from '../domain/sales-rollup.ts';

const MINUTE = 60_000;
const DAY = 24 * HOUR_MS;
/** An hour is rolled up this long after it ends: sales reach the store up to a minute late. */
export const ROLLUP_GRACE_MS = 10 * MINUTE;
/** The most sales read raw after the last rolled-up hour (more only while a catch-up is behind). */
export const RAW_TAIL_MS = 3 * HOUR_MS;
export const WINDOW_MS: Record<SalesWindow, number> = { '7d': 7 * DAY, '14d': 14 * DAY };

/** A variant that sold at least the asked number of times in a window, with its prices there. */
export interface VariantSales {
  kind: VariantKind;
  key: string;
  tag: string;
  itemName: string;
  mods: VariantModifiers | null;
  /** sales in the window */
  count: number;
  /** the window's prices: rolled-up hours as digest points, raw sales as themselves */
  points: WeightedPrice[];
  /** the same prices with a time each (an hour's digest points at the middle of their hour) */
  samples: Array<{ ts: number; price: number }>;
}

/** Sales not rolled up yet, from `from` on. */
export interface RawTail {
  from: number;
  sales: SoldItem[];
}

export class SalesRollups {
  private catching: Promise<RollupState> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger?: Logger,
  ) {}

  /** Rolls up every hour closed at `now` (default: the clock) and moves the windows. Concurrent calls share one run. */
  catchUp(now = this.clock.now()): Promise<RollupState> {
    if (!this.catching) {
      this.catching = this.run(now).finally(() => {
        this.catching = undefined;
      });
    }
    return this.catching;
  }

  /** Sales were stored for hours already rolled up (history replay): roll the 14-day window again. */
  async rewind(now = this.clock.now()): Promise<void> {
    await this.store.saleRollups.rewind(hourOf(now - WINDOW_MS['14d']));
  }

  private async run(now: number): Promise<RollupState> {
    const repo = this.store.saleRollups;
    const start = hourOf(now - WINDOW_MS['14d']);
    await repo.begin(start);
    // Windows first: hours that are already too old for the windowed kinds are then rolled up for `tag` only.
    await this.age(now);
    const closedTo = hourOf(now - ROLLUP_GRACE_MS);
    let state = await repo.state();
    let rolled = 0;
    while (state.rolledTo < closedTo) {
      const hour = state.rolledTo;
      // Hours without sales (a quiet store, or before a history replay arrives) are passed in one step.
      const first = await this.store.flipInputs.firstSaleFrom(hour);
      const next = first === null ? closedTo : Math.min(closedTo, hourOf(first));
      if (next > hour) {
        await repo.rollEmpty(hour, next);
      } else {
        const sales = await this.store.flipInputs.soldBetween(hour, hour + HOUR_MS);
        await repo.rollHour(hour, rollSales(sales).get(hour) ?? []);
        rolled++;
      }
      state = await repo.state();
      // One hour at a time, the event loop served in between (a first catch-up can be days of sales).
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (rolled > 1) this.logger?.info({ hours: rolled, rolledTo: new Date(state.rolledTo).toISOString() }, 'sales rolled up');
    await this.age(now);
    return repo.state();
  }

  private async age(now: number): Promise<void> {
    for (const w of ['7d', '14d'] as const) await this.store.saleRollups.ageTo(w, hourOf(now - WINDOW_MS[w]));
  }

  /** The sales after the last rolled-up hour (at most RAW_TAIL_MS of them), read once for several kinds. */
  async rawTail(state: RollupState, now: number): Promise<RawTail> {
    const from = Math.max(state.rolledTo, now - RAW_TAIL_MS);
    return { from, sales: await this.store.flipInputs.soldBetween(from) };
  }

  /**
   * Variants of `kind` with at least `minSales` sales in `window` at `now`: the rolled-up hours
   * from the window's start plus the raw sales after the last rolled-up hour.
   */
  async variantsSelling(kind: VariantKind, window: SalesWindow, minSales: number, state: RollupState, now: number, tail?: RawTail): Promise<VariantSales[]> {
    const { from: tailFrom, sales: tailSales } = tail ?? (await this.rawTail(state, now));
    // Raw sales keep their own times.
    const tailGroups = new Map<string, { tag: string; itemName: string; mods: VariantModifiers | null; raw: Array<{ ts: number; price: number }> }>();
    for (const sale of tailSales) {
      if (!(sale.price > 0)) continue;
      const { key, mods, price } = saleVariants(sale)[kind];
      const e = tailGroups.get(key);
      if (e) e.raw.push({ ts: sale.at, price });
      else tailGroups.set(key, { tag: sale.tag, itemName: sale.itemName, mods, raw: [{ ts: sale.at, price }] });
    }
    const windowStart = window === '7d' ? state.aged7d : state.aged14d;
    const stored = new Map((await this.store.saleRollups.variantsWithSales(kind, window, Math.max(1, minSales))).map((v) => [v.key, v]));
    const missing = [...tailGroups.keys()].filter((k) => !stored.has(k));
    for (const v of await this.store.saleRollups.variantsByKey(kind, missing)) stored.set(v.key, v);

    const out = new Map<string, VariantSales>();
    for (const v of stored.values()) {
      const counted = window === '7d' ? v.sales7d : v.sales14d;
      const count = counted + (tailGroups.get(v.key)?.raw.length ?? 0);
      if (count < minSales) continue;
      out.set(v.key, { kind, key: v.key, tag: v.tag, itemName: v.itemName, mods: v.mods, count, points: [], samples: [] });
    }
    for (const [key, g] of tailGroups) {
      if (stored.has(key) || g.raw.length < minSales) continue;
      out.set(key, { kind, key, tag: g.tag, itemName: g.itemName, mods: g.mods, count: g.raw.length, points: [], samples: [] });
    }
    const ids = new Map<number, VariantSales>();
    for (const e of out.values()) {
      const v = stored.get(e.key);
      if (v) ids.set(v.id, e);
    }
    for (const h of await this.store.saleRollups.hours([...ids.keys()], windowStart)) {
      if (h.hour >= tailFrom) continue; // read raw instead
      const e = ids.get(h.variant)!;
      const before = e.points.length;
      digestPoints(h.count, h.prices, e.points);
      for (let i = before; i < e.points.length; i++) e.samples.push({ ts: h.hour + HOUR_MS / 2, price: e.points[i]!.price });
    }
    for (const [key, { raw }] of tailGroups) {
      const e = out.get(key);
      if (!e) continue;
      for (const s of raw) {
        e.points.push({ price: s.price, weight: 1 });
        e.samples.push(s);
      }
    }
    return [...out.values()];
  }
}
