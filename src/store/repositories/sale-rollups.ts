/**
 * Sales rolled up per variant and hour (migration 012, domain/sales-rollup.ts). Hours are rolled in
 * order, each exactly once per process group: `rollHour` moves the state's `rolled_to` forward
 * with a compare-and-set inside the transaction that writes the hour, so two processes rolling at
 * once cannot both count it. The variants' window counters (`sales_7d`, `sales_14d`) are kept in
 * the same transactions, so the variants a flip needs are read through an index.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import type { Database, SaleHoursTable, SaleVariantsTable } from '../schema.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import { HOUR_MS, type HourGroup, type VariantKind } from '../../domain/sales-rollup.ts';
import type { VariantModifiers } from '../../domain/flips/attribute.ts';

export type SalesWindow = '7d' | '14d';
const COUNTER: Record<SalesWindow, 'sales_7d' | 'sales_14d'> = { '7d': 'sales_7d', '14d': 'sales_14d' };
const AGED: Record<SalesWindow, 'aged_7d' | 'aged_14d'> = { '7d': 'aged_7d', '14d': 'aged_14d' };

export interface RollupState {
  /** every hour before this one is rolled up; 0 = not started */
  rolledTo: number;
  aged7d: number;
  aged14d: number;
}

export interface StoredVariant {
  id: number;
  kind: VariantKind;
  key: string;
  tag: string;
  itemName: string;
  mods: VariantModifiers | null;
  sales7d: number;
  sales14d: number;
}

export interface VariantCount {
  id: number;
  key: string;
  tag: string;
  /** rolled-up sales in the window asked for */
  sales: number;
}

/** A stored hour with its price digest decoded. */
export interface StoredHour extends Omit<SaleHoursTable, 'prices'> {
  /** the price digest, ascending */
  prices: Float64Array;
}

type VariantInsert = Pick<SaleVariantsTable, 'kind' | 'key' | 'tag' | 'item_name' | 'mods'>;

const VARIANTS: BulkSpec<VariantInsert> = {
  table: 'sale_variants',
  columns: { kind: 'text', key: 'text', tag: 'text', item_name: 'text', mods: 'text' },
  conflict: { target: ['kind', 'key'], update: 'nothing' },
};

const HOURS: BulkSpec<SaleHoursTable> = {
  table: 'sale_hours',
  columns: { variant: 'int4', hour: 'int8', count: 'int4', sum: 'float8', min: 'float8', max: 'float8', prices: 'bytea' },
};

/** Kinds whose hours are kept only as long as the longest window needs them. */
const WINDOWED_KINDS = ['attr', 'mayor'];
const IN_CHUNK = 500;

function encodePrices(prices: readonly number[]): Uint8Array {
  const f = Float64Array.from(prices);
  return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
}

function decodePrices(data: Uint8Array): Float64Array {
  // A copy: the driver's buffer may not be 8-byte aligned.
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return new Float64Array(copy.buffer);
}

function countOf(r: { id: number; key: string; tag: string }, counter: string): VariantCount {
  return { id: Number(r.id), key: r.key, tag: r.tag, sales: Number((r as Record<string, unknown>)[counter]) };
}

function variantOf(r: { id: number; kind: string; key: string; tag: string; item_name: string; mods: string | null; sales_7d: number; sales_14d: number }): StoredVariant {
  let mods: VariantModifiers | null = null;
  if (r.mods !== null) {
    try {
      mods = JSON.parse(r.mods) as VariantModifiers;
    } catch {
      mods = null;
    }
  }
  return { id: Number(r.id), kind: r.kind as VariantKind, key: r.key, tag: r.tag, itemName: r.item_name, mods, sales7d: Number(r.sales_7d), sales14d: Number(r.sales_14d) };
}

export class SaleRollupRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async state(db: Kysely<Database> = this.db): Promise<RollupState> {
    const r = await db.selectFrom('sale_rollup_state').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    return { rolledTo: Number(r.rolled_to), aged7d: Number(r.aged_7d), aged14d: Number(r.aged_14d) };
  }

  /** Starts the rollup at `from` (an hour start) when it has not started; false when it had. */
  async begin(from: number): Promise<boolean> {
    const r = await this.db.updateTable('sale_rollup_state').set({ rolled_to: from, aged_7d: from, aged_14d: from }).where('id', '=', 1).where('rolled_to', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Writes hour `hour`'s groups (replacing whatever that hour held) and moves `rolled_to` past it,
   * when `rolled_to` is `hour`; false (nothing written) when another process got there first.
   */
  async rollHour(hour: number, groups: readonly HourGroup[]): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('sale_rollup_state').set({ rolled_to: hour + HOUR_MS }).where('id', '=', 1).where('rolled_to', '=', hour).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      const state = await this.state(trx);
      const counted = (Object.keys(COUNTER) as SalesWindow[]).filter((w) => hour >= (w === '7d' ? state.aged7d : state.aged14d));
      // A re-rolled hour (after rewind): its old rows leave the counters and the table first.
      for (const w of counted) await this.shiftCounters(trx, w, hour, hour + HOUR_MS, -1);
      await trx.deleteFrom('sale_hours').where('hour', '=', hour).execute();

      const kept = hour >= state.aged14d ? groups : groups.filter((g) => !WINDOWED_KINDS.includes(g.kind));
      if (kept.length === 0) return true;
      await bulkInsert(
        trx,
        this.dialect,
        VARIANTS,
        kept.map((g) => ({ kind: g.kind, key: g.key, tag: g.tag, item_name: g.itemName, mods: g.mods ? JSON.stringify(g.mods) : null })),
      );
      const ids = await this.idsOf(trx, kept);
      await bulkInsert(
        trx,
        this.dialect,
        HOURS,
        kept.map((g) => ({ variant: ids.get(`${g.kind}\u0000${g.key}`)!, hour, count: g.count, sum: g.sum, min: g.min, max: g.max, prices: encodePrices(g.prices) })),
      );
      for (const w of counted) await this.shiftCounters(trx, w, hour, hour + HOUR_MS, 1);
      return true;
    });
  }

  /**
   * Marks the hours [from, to) rolled up with no sales in them (dropping whatever a previous roll left
   * there), when `rolled_to` is `from`; false when another process got there first.
   */
  async rollEmpty(from: number, to: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('sale_rollup_state').set({ rolled_to: to }).where('id', '=', 1).where('rolled_to', '=', from).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      const state = await this.state(trx);
      await this.shiftCounters(trx, '7d', Math.max(from, state.aged7d), to, -1);
      await this.shiftCounters(trx, '14d', Math.max(from, state.aged14d), to, -1);
      await trx.deleteFrom('sale_hours').where('hour', '>=', from).where('hour', '<', to).execute();
      return true;
    });
  }

  /**
   * Moves window `window`'s start to `to` (an hour start): the hours leaving it leave its counters.
   * Moving the 14-day window also drops the windowed kinds' hours and variants that left it.
   */
  async ageTo(window: SalesWindow, to: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const state = await this.state(trx);
      const from = window === '7d' ? state.aged7d : state.aged14d;
      if (state.rolledTo === 0 || from >= to) return;
      // Compare-and-set: of two processes ageing at once, one moves the window.
      const moved = await trx.updateTable('sale_rollup_state').set({ [AGED[window]]: to }).where('id', '=', 1).where(AGED[window], '=', from).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return;
      await this.shiftCounters(trx, window, from, to, -1);
      if (window === '14d') {
        await sql`delete from sale_hours where hour >= ${from} and hour < ${to}
          and variant in (select id from sale_variants where kind in ('attr', 'mayor'))`.execute(trx);
        await trx.deleteFrom('sale_variants').where('kind', 'in', WINDOWED_KINDS).where('sales_14d', '<=', 0).execute();
      }
    });
  }

  /** Rolls up again from `to` on (history was stored for hours already rolled up). */
  async rewind(to: number): Promise<void> {
    await this.db.updateTable('sale_rollup_state').set({ rolled_to: to }).where('id', '=', 1).where('rolled_to', '>', to).execute();
  }

  /** Rolled-up sales per tag in `window` (the `tag` variants: one row per tag sold in the last 14 days). */
  async salesPerTag(window: SalesWindow): Promise<Map<string, number>> {
    const counter = COUNTER[window];
    const rows = await this.db.selectFrom('sale_variants').select(['tag', counter]).where('kind', '=', 'tag').execute();
    return new Map(rows.map((r) => [r.tag, Number(r[counter])]));
  }

  /** Variants of `kind` with at least `min` rolled-up sales in `window`. */
  async variantsWithSales(kind: VariantKind, window: SalesWindow, min: number): Promise<StoredVariant[]> {
    const rows = await this.db.selectFrom('sale_variants').selectAll().where('kind', '=', kind).where(COUNTER[window], '>=', min).execute();
    return rows.map(variantOf);
  }

  /** Id, key, tag and window count of the variants of `kind` with at least `min` sales in `window` (no modifiers parsed). */
  async variantCounts(kind: VariantKind, window: SalesWindow, min: number): Promise<VariantCount[]> {
    const counter = COUNTER[window];
    const rows = await this.db.selectFrom('sale_variants').select(['id', 'key', 'tag', counter]).where('kind', '=', kind).where(counter, '>=', min).execute();
    return rows.map((r) => countOf(r, counter));
  }

  /** The same for variants of `kind` by id (those stored). */
  variantCountsById(kind: VariantKind, window: SalesWindow, ids: readonly number[]): Promise<VariantCount[]> {
    return this.countsWhere(kind, window, 'id', ids);
  }

  /** Per tag, the variants of `kind` with the most sales in `window` (at least `min`; every one of a tie). */
  async topVariantPerTag(kind: VariantKind, window: SalesWindow, min: number): Promise<VariantCount[]> {
    const counter = sql.ref(COUNTER[window]);
    const { rows } = await sql<{ id: number; key: string; tag: string; sales: number }>`
      select v.id, v.key, v.tag, v.${counter} as sales from sale_variants v
      join (select tag, max(${counter}) as top from sale_variants where kind = ${kind} group by tag) t on t.tag = v.tag and v.${counter} = t.top
      where v.kind = ${kind} and v.${counter} >= ${min}`.execute(this.db);
    return rows.map((r) => ({ id: Number(r.id), key: r.key, tag: r.tag, sales: Number(r.sales) }));
  }

  /** The same for variants of `kind` by key (those stored). */
  variantCountsByKey(kind: VariantKind, window: SalesWindow, keys: readonly string[]): Promise<VariantCount[]> {
    return this.countsWhere(kind, window, 'key', keys);
  }

  /** Counted rows of `kind` whose `column` is one of `values`, read IN_CHUNK values at a time. */
  private async countsWhere(kind: VariantKind, window: SalesWindow, column: 'id' | 'key', values: readonly (number | string)[]): Promise<VariantCount[]> {
    const counter = COUNTER[window];
    const out: VariantCount[] = [];
    for (let i = 0; i < values.length; i += IN_CHUNK) {
      const chunk = values.slice(i, i + IN_CHUNK);
      const rows = await this.db.selectFrom('sale_variants').select(['id', 'key', 'tag', counter]).where('kind', '=', kind).where(column, 'in', chunk as never).execute();
      for (const r of rows) out.push(countOf(r, counter));
    }
    return out;
  }

  /** Variants by id (those stored). */
  async variantsById(ids: readonly number[]): Promise<StoredVariant[]> {
    const out: StoredVariant[] = [];
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const rows = await this.db.selectFrom('sale_variants').selectAll().where('id', 'in', ids.slice(i, i + IN_CHUNK)).execute();
      for (const r of rows) out.push(variantOf(r));
    }
    return out;
  }

  /** The variants with a rolled-up hour in [from, to). */
  async variantsWithHoursIn(from: number, to: number): Promise<number[]> {
    if (!(from < to)) return [];
    const rows = await this.db.selectFrom('sale_hours').select('variant').distinct().where('hour', '>=', from).where('hour', '<', to).execute();
    return rows.map((r) => Number(r.variant));
  }

  /** Variants of `kind` by key (those stored). */
  async variantsByKey(kind: VariantKind, keys: readonly string[]): Promise<StoredVariant[]> {
    const out: StoredVariant[] = [];
    for (let i = 0; i < keys.length; i += IN_CHUNK) {
      const rows = await this.db.selectFrom('sale_variants').selectAll().where('kind', '=', kind).where('key', 'in', keys.slice(i, i + IN_CHUNK)).execute();
      for (const r of rows) out.push(variantOf(r));
    }
    return out;
  }

  /** The rolled-up hours of these variants from `from` (inclusive) on. */
  async hours(variants: readonly number[], from: number): Promise<StoredHour[]> {
    const out: StoredHour[] = [];
    for (let i = 0; i < variants.length; i += IN_CHUNK) {
      const rows = await this.db
        .selectFrom('sale_hours')
        .selectAll()
        .where('variant', 'in', variants.slice(i, i + IN_CHUNK))
        .where('hour', '>=', from)
        .execute();
      for (const r of rows) out.push({ variant: Number(r.variant), hour: Number(r.hour), count: Number(r.count), sum: Number(r.sum), min: Number(r.min), max: Number(r.max), prices: decodePrices(r.prices) });
    }
    return out;
  }

  /** Adds (sign 1) or subtracts (sign −1) the sales of hours [from, to) to the window's counters. */
  private async shiftCounters(trx: Kysely<Database>, window: SalesWindow, from: number, to: number, sign: 1 | -1): Promise<void> {
    if (!(from < to)) return;
    const counter = sql.ref(COUNTER[window]);
    const op = sql.raw(sign > 0 ? '+' : '-');
    await sql`update sale_variants set ${counter} = ${counter} ${op} s.n
      from (select variant, sum("count") as n from sale_hours where hour >= ${from} and hour < ${to} group by variant) as s
      where s.variant = sale_variants.id`.execute(trx);
  }

  private async idsOf(trx: Kysely<Database>, groups: readonly HourGroup[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const byKind = new Map<string, string[]>();
    for (const g of groups) {
      const list = byKind.get(g.kind) ?? [];
      list.push(g.key);
      byKind.set(g.kind, list);
    }
    for (const [kind, keys] of byKind) {
      for (let i = 0; i < keys.length; i += IN_CHUNK) {
        const rows = await trx.selectFrom('sale_variants').select(['id', 'key']).where('kind', '=', kind).where('key', 'in', keys.slice(i, i + IN_CHUNK)).execute();
        for (const r of rows) out.set(`${kind}\u0000${r.key}`, Number(r.id));
      }
    }
    return out;
  }
}
