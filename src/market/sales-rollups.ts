/**
 * The sales rollups (store.saleRollups) as the auction-driven flips read them. jobs/sales-rollups.ts
 * writes them (the jobs leader); this module never writes: it reads the rolled-up state, then the
 * attribute targets and mayor items of the windows with their prices: the rolled-up hours plus the
 * sales after the last rolled hour (at most RAW_TAIL_MS of them), never every sale of the window.
 */
import type { Store } from '../store/index.ts';
import type { RollupState, SalesWindow, VariantCount } from '../store/repositories/sale-rollups.ts';
import type { VariantModifiers } from '../domain/flips/attribute.ts';
import { digestPoints, HOUR_MS, SALES_WINDOW_MS, saleVariants, weightedMedian, type SoldItem, type VariantKind, type WeightedPrice } from '../domain/sales-rollup.ts';

/** The most sales read raw after the last rolled-up hour (more only while the rollup job is behind). */
export const RAW_TAIL_MS = 3 * HOUR_MS;
export const WINDOW_MS: Record<SalesWindow, number> = SALES_WINDOW_MS;

/** Sales not rolled up yet, from `from` on. */
export interface RawTail {
  from: number;
  sales: SoldItem[];
}

/** An attribute flip target: a variant, its sales in the 7-day window and their median. */
export interface AttributeTargetSales {
  key: string;
  tag: string;
  mods: VariantModifiers;
  median: number;
  count: number;
}

/** A tag's most sold mayor variant: its sales in the 14-day window and their prices with times. */
export interface MayorItemSales {
  tag: string;
  name: string;
  count: number;
  samples: Array<{ ts: number; price: number }>;
}

/** Target variants whose stored hours are read and reduced together (a few thousand hour rows). */
const HOURS_BATCH = 500;

export class SalesRollups {
  /** attribute targets kept between calls: median of the rolled-up hours, and the variant */
  private readonly medians = new Map<number, number>();
  private readonly variants = new Map<number, { tag: string; mods: VariantModifiers | null }>();
  private keptAt: RollupState | undefined;
  private attrCounts: Map<number, VariantCount> | null = null;
  /** the rolled-up points of targets that also have raw sales (their median is merged every time) */
  private readonly storedPoints = new Map<number, WeightedPrice[]>();
  private attrMin = 0;

  constructor(private readonly store: Store) {}

  /** Where the rollup job has got to: the hours rolled up and the windows' starts. */
  state(): Promise<RollupState> {
    return this.store.saleRollups.state();
  }

  /** The sales after the last rolled-up hour (at most RAW_TAIL_MS of them), read once for several kinds. */
  async rawTail(state: RollupState, now: number): Promise<RawTail> {
    const from = Math.max(state.rolledTo, now - RAW_TAIL_MS);
    return { from, sales: await this.store.flipInputs.soldBetween(from) };
  }

  /**
   * The attribute flips' targets: `attr` variants with at least `minSales` sales in the 7-day window
   * and their median sale price. Medians and modifiers of rolled-up variants are kept between calls and
   * recomputed only for variants whose hours changed (rolled in or aged out since the last call), so a
   * steady computation reads the hours of an hour's worth of variants, not of every target.
   */
  async attributeTargets(state: RollupState, tail: RawTail, minSales: number): Promise<AttributeTargetSales[]> {
    const changed = await this.invalidate(state);
    const tailGroups = groupTail(tail, 'attr');
    // The qualifying variants' counts, kept too: only variants whose hours changed can have new counts.
    if (this.attrCounts === null || this.attrMin !== minSales) {
      this.attrCounts = new Map((await this.store.saleRollups.variantCounts('attr', '7d', minSales)).map((c) => [c.id, c]));
      this.attrMin = minSales;
    } else if (changed.length > 0) {
      for (const id of changed) this.attrCounts.delete(id);
      for (const c of await this.store.saleRollups.variantCountsById('attr', '7d', [...new Set(changed)])) if (c.sales >= minSales) this.attrCounts.set(c.id, c);
    }
    const known = new Set<string>();
    for (const c of this.attrCounts.values()) known.add(c.key);
    const counts = [...this.attrCounts.values(), ...(await this.store.saleRollups.variantCountsByKey('attr', '7d', [...tailGroups.keys()].filter((k) => !known.has(k))))];
    const needHours: VariantCount[] = [];
    const needVariant: number[] = [];
    const seen = new Set<number>();
    for (const c of counts) {
      const raw = tailGroups.get(c.key)?.raw.length ?? 0;
      if (c.sales + raw < minSales) continue;
      seen.add(c.id);
      if (!this.variants.has(c.id)) needVariant.push(c.id);
      if (!this.medians.has(c.id) || (raw > 0 && !this.storedPoints.has(c.id))) needHours.push(c);
    }
    for (const v of await this.store.saleRollups.variantsById(needVariant)) this.variants.set(v.id, { tag: v.tag, mods: v.mods });
    // In batches: after a restart every target needs its hours, and reading them all at once held
    // every hour's digest of the window at the same time (the largest peak of a restart on history).
    for (let i = 0; i < needHours.length; i += HOURS_BATCH) {
      const batch = needHours.slice(i, i + HOURS_BATCH);
      const points = new Map<number, WeightedPrice[]>(batch.map((c) => [c.id, []]));
      for (const h of await this.store.saleRollups.hours([...points.keys()], state.aged7d)) {
        if (h.hour < tail.from) digestPoints(h.count, h.prices, points.get(h.variant));
      }
      for (const c of batch) {
        const p = points.get(c.id)!;
        const stored = weightedMedian(p);
        if (stored !== null) this.medians.set(c.id, stored);
        else this.medians.delete(c.id);
        // Variants that sell right now (raw sales on top) keep their points: they are few and read every time.
        if (tailGroups.has(c.key)) this.storedPoints.set(c.id, p);
      }
    }
    // Forget variants that no longer qualify: what is kept stays bounded by today's targets.
    for (const id of this.variants.keys()) if (!seen.has(id)) this.variants.delete(id);
    for (const id of this.medians.keys()) if (!seen.has(id)) this.medians.delete(id);
    for (const id of this.storedPoints.keys()) if (!seen.has(id)) this.storedPoints.delete(id);
    const out: AttributeTargetSales[] = [];
    const counted = new Set<string>();
    for (const c of counts) {
      if (!seen.has(c.id)) continue;
      counted.add(c.key);
      const v = this.variants.get(c.id);
      const raw = tailGroups.get(c.key)?.raw.length ?? 0;
      const rawPoints = (tailGroups.get(c.key)?.raw ?? []).map((r) => ({ price: r.price, weight: 1 }));
      const median = raw > 0 ? weightedMedian([...(this.storedPoints.get(c.id) ?? []), ...rawPoints]) : (this.medians.get(c.id) ?? null);
      if (!v?.mods || median === null) continue;
      out.push({ key: c.key, tag: v.tag, mods: v.mods, median, count: c.sales + raw });
    }
    // Variants seen only in the raw tail.
    for (const [key, g] of tailGroups) {
      if (counted.has(key) || g.raw.length < minSales || !g.mods) continue;
      const median = weightedMedian(g.raw.map((r) => ({ price: r.price, weight: 1 })));
      if (median !== null) out.push({ key, tag: g.tag, mods: g.mods, median, count: g.raw.length });
    }
    return out;
  }

  /**
   * The mayor flips' auction items: per tag, its most sold `mayor` variant in the 14-day window (at
   * least `minSales` sales), with its price samples. Only the chosen variants' hours are read.
   */
  async mayorItems(state: RollupState, tail: RawTail, minSales: number): Promise<MayorItemSales[]> {
    const tailGroups = groupTail(tail, 'mayor');
    // The true top of a tag is its stored top, or a variant the raw tail adds sales to.
    const stored0 = await this.store.saleRollups.topVariantPerTag('mayor', '14d', 1);
    const known = new Set(stored0.map((c) => c.key));
    const counts = [...stored0, ...(await this.store.saleRollups.variantCountsByKey('mayor', '14d', [...tailGroups.keys()].filter((k) => !known.has(k))))];
    const top = new Map<string, { id: number | null; key: string; count: number }>();
    const consider = (tag: string, id: number | null, key: string, count: number) => {
      if (count < minSales) return;
      const best = top.get(tag);
      // Ties go to the smaller key, so the choice does not depend on read order.
      if (!best || count > best.count || (count === best.count && key < best.key)) top.set(tag, { id, key, count });
    };
    const stored = new Set<string>();
    for (const c of counts) {
      stored.add(c.key);
      consider(c.tag, c.id, c.key, c.sales + (tailGroups.get(c.key)?.raw.length ?? 0));
    }
    for (const [key, g] of tailGroups) if (!stored.has(key)) consider(g.tag, null, key, g.raw.length);
    const ids = [...top.values()].flatMap((c) => (c.id === null ? [] : [c.id]));
    const names = new Map((await this.store.saleRollups.variantsById(ids)).map((v) => [v.id, v.itemName]));
    const samples = new Map<number, Array<{ ts: number; price: number }>>(ids.map((id) => [id, []]));
    for (const h of await this.store.saleRollups.hours(ids, state.aged14d)) {
      if (h.hour >= tail.from) continue;
      const list = samples.get(h.variant)!;
      for (const p of digestPoints(h.count, h.prices)) list.push({ ts: h.hour + HOUR_MS / 2, price: p.price });
    }
    return [...top].map(([tag, c]) => {
      const g = tailGroups.get(c.key);
      const list = c.id === null ? [] : samples.get(c.id)!;
      for (const r of g?.raw ?? []) list.push(r);
      return { tag, name: (c.id === null ? undefined : names.get(c.id)) ?? g?.itemName ?? tag, count: c.count, samples: list };
    });
  }

  /** Drops kept medians (and counts) whose hours changed since they were computed; returns those variants. */
  private async invalidate(state: RollupState): Promise<number[]> {
    const before = this.keptAt;
    this.keptAt = state;
    if (!before) return [];
    if (state.rolledTo < before.rolledTo || state.aged7d < before.aged7d) {
      this.medians.clear();
      this.storedPoints.clear();
      this.attrCounts = null;
      return [];
    }
    const changed = [
      ...(await this.store.saleRollups.variantsWithHoursIn(before.rolledTo, state.rolledTo)),
      ...(await this.store.saleRollups.variantsWithHoursIn(before.aged7d, state.aged7d)),
    ];
    for (const id of changed) {
      this.medians.delete(id);
      this.storedPoints.delete(id);
    }
    return changed;
  }
}

export interface TailGroup {
  tag: string;
  itemName: string;
  mods: VariantModifiers | null;
  raw: Array<{ ts: number; price: number }>;
}

/** The raw tail's sales grouped by their variant of `kind`; each keeps its own time. */
export function groupTail(tail: RawTail, kind: VariantKind): Map<string, TailGroup> {
  const groups = new Map<string, TailGroup>();
  for (const sale of tail.sales) {
    if (!(sale.price > 0)) continue;
    const { key, mods, price } = saleVariants(sale)[kind];
    const e = groups.get(key);
    if (e) e.raw.push({ ts: sale.at, price });
    else groups.set(key, { tag: sale.tag, itemName: sale.itemName, mods, raw: [{ ts: sale.at, price }] });
  }
  return groups;
}
