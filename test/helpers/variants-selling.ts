/**
 * The sales rollups' reference read for the tests: every variant of a kind selling in a window,
 * with all its prices.
 */
import { digestPoints, HOUR_MS, type VariantIdentity, type VariantKind, type WeightedPrice } from '../../src/domain/sales-rollup.ts';
import { groupTail, type RawTail, type SalesRollups } from '../../src/market/sales-rollups.ts';
import type { Store } from '../../src/store/index.ts';
import type { RollupState, SalesWindow } from '../../src/store/repositories/sale-rollups.ts';

/** A variant that sold at least the asked number of times in a window, with its prices there. */
export interface VariantSales extends VariantIdentity {
  /** sales in the window */
  count: number;
  /** the window's prices: rolled-up hours as digest points, raw sales as themselves */
  points: WeightedPrice[];
  /** the same prices with a time each (an hour's digest points at the middle of their hour) */
  samples: Array<{ ts: number; price: number }>;
}

/**
 * Variants of `kind` with at least `minSales` sales in `window` at `now`: the rolled-up hours
 * from the window's start plus the raw sales after the last rolled-up hour, every variant's
 * hours read at once. The tests' reference for what SalesRollups' attribute targets and mayor
 * items keep and read in batches (it was the engine's own read before those).
 */
export async function variantsSelling(store: Store, rollups: SalesRollups, kind: VariantKind, window: SalesWindow, minSales: number, state: RollupState, now: number, tail?: RawTail): Promise<VariantSales[]> {
  const { from: tailFrom, sales: tailSales } = tail ?? (await rollups.rawTail(state, now));
  const tailGroups = groupTail({ from: tailFrom, sales: tailSales }, kind);
  const windowStart = window === '7d' ? state.aged7d : state.aged14d;
  const stored = new Map((await store.saleRollups.variantsWithSales(kind, window, Math.max(1, minSales))).map((v) => [v.key, v]));
  const missing = [...tailGroups.keys()].filter((k) => !stored.has(k));
  for (const v of await store.saleRollups.variantsByKey(kind, missing)) stored.set(v.key, v);

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
  for (const h of await store.saleRollups.hours([...ids.keys()], windowStart)) {
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
