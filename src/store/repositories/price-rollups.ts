/**
 * Price rollups (migration 017, domain/prices.ts): cells per tag, price variant and hour or day,
 * and the lowest BIN seen per hour and day. Hours are rolled in order, each once per process
 * group: `rollHour` moves `rolled_to` with a compare-and-set inside the transaction that writes
 * the hour, and `rollDay` moves `days_to` the same way. Every read is bounded by the tag and the
 * time range asked for (the primary keys lead with tag, variant, time).
 */
import { cleanSales, type CleanSales } from '../../domain/bulk-prices.ts';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import type { Database, PriceBinHoursTable, PriceHoursTable } from '../schema.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import { DAY_MS, HOUR_MS, medianOf as medianOfCells, mergeCells, type PriceCell } from '../../domain/prices.ts';

export interface PriceRollupState {
  /** every hour before this one is rolled up; 0 = not started */
  rolledTo: number;
  /** every day before this one is in the daily tables */
  daysTo: number;
}

/** A cell of one tag and variant at a time (hour or day start). */
export interface StoredCell extends PriceCell {
  tag: string;
  variant: string;
  at: number;
}

/** The lowest BIN of one tag and variant at a time (hour or day start). */
export interface StoredBin {
  tag: string;
  variant: string;
  at: number;
  lowest: number;
  uuid: string;
}

/** Totals of one tag and variant over a window (the bulk files' averages): a cell's figures without its digest. */
export interface VariantAverage extends Omit<PriceCell, 'prices'> {
  tag: string;
  variant: string;
  median: number | null;
  /** the mean of the hourly lowest BINs recorded in the window; null when none was */
  lowestBinAverage: number | null;
  /** hours with a lowest BIN recorded */
  lowestBinHours: number;
  /** the sales inside the outlier fence (domain/bulk-prices.ts `cleanSales`) */
  clean: CleanSales;
}

const HOURS: BulkSpec<PriceHoursTable> = {
  table: 'price_hours',
  columns: { tag: 'text', variant: 'text', hour: 'int8', count: 'int4', items: 'int8', coins: 'float8', sum: 'float8', min: 'float8', max: 'float8', prices: 'bytea' },
};
const DAYS: BulkSpec<Omit<PriceHoursTable, 'hour'> & { day: number }> = {
  table: 'price_days',
  columns: { tag: 'text', variant: 'text', day: 'int8', count: 'int4', items: 'int8', coins: 'float8', sum: 'float8', min: 'float8', max: 'float8', prices: 'bytea' },
};
const BIN_HOURS: BulkSpec<PriceBinHoursTable> = {
  table: 'price_bin_hours',
  columns: { tag: 'text', variant: 'text', hour: 'int8', lowest: 'float8', uuid: 'text' },
  // Several observations in one hour keep the lowest.
  conflict: { target: ['tag', 'variant', 'hour'], update: ['lowest', 'uuid'], where: sql`price_bin_hours.lowest > excluded.lowest` },
};
const BIN_DAYS: BulkSpec<Omit<PriceBinHoursTable, 'hour'> & { day: number }> = {
  table: 'price_bin_days',
  columns: { tag: 'text', variant: 'text', day: 'int8', lowest: 'float8', uuid: 'text' },
};

function encodePrices(prices: ArrayLike<number>): Uint8Array {
  const f = Float64Array.from(prices as ArrayLike<number>);
  return new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
}

function decodePrices(data: Uint8Array): Float64Array {
  // A copy: the driver's buffer may not be 8-byte aligned.
  const copy = new Uint8Array(data.byteLength);
  copy.set(data);
  return new Float64Array(copy.buffer);
}

type CellRow = { tag: string; variant: string; count: number | string; items: number | string; coins: number | string; sum: number | string; min: number | string; max: number | string; prices: Uint8Array };

function cellOfRow(r: CellRow, at: number): StoredCell {
  return { tag: r.tag, variant: r.variant, at, count: Number(r.count), items: Number(r.items), coins: Number(r.coins), sum: Number(r.sum), min: Number(r.min), max: Number(r.max), prices: decodePrices(r.prices) };
}

export class PriceRollupRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async state(db: Kysely<Database> = this.db): Promise<PriceRollupState> {
    const r = await db.selectFrom('price_rollup_state').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    return { rolledTo: Number(r.rolled_to), daysTo: Number(r.days_to) };
  }

  /** Starts the rollup at `from` (an hour start) when it has not started; false when it had. */
  async begin(from: number): Promise<boolean> {
    const day = Math.floor(from / DAY_MS) * DAY_MS;
    const r = await this.db.updateTable('price_rollup_state').set({ rolled_to: from, days_to: day }).where('id', '=', 1).where('rolled_to', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Writes hour `hour`'s cells (replacing what the hour held) and moves `rolled_to` past it, when
   * `rolled_to` is `hour`; false (nothing written) when another process got there first.
   */
  async rollHour(hour: number, cells: ReadonlyArray<{ tag: string; variant: string; cell: PriceCell }>): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('price_rollup_state').set({ rolled_to: hour + HOUR_MS }).where('id', '=', 1).where('rolled_to', '=', hour).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await trx.deleteFrom('price_hours').where('hour', '=', hour).execute();
      await bulkInsert(
        trx,
        this.dialect,
        HOURS,
        cells.map(({ tag, variant, cell }) => ({ tag, variant, hour, count: cell.count, items: cell.items, coins: cell.coins, sum: cell.sum, min: cell.min, max: cell.max, prices: encodePrices(cell.prices) })),
      );
      return true;
    });
  }

  /** Marks the hours [from, to) rolled up with no sales (dropping what a previous roll left there), when `rolled_to` is `from`. */
  async rollEmpty(from: number, to: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('price_rollup_state').set({ rolled_to: to }).where('id', '=', 1).where('rolled_to', '=', from).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await trx.deleteFrom('price_hours').where('hour', '>=', from).where('hour', '<', to).execute();
      return true;
    });
  }

  /**
   * Writes day `day` (every hour of it rolled up) into the daily tables from its hours, when
   * `days_to` is `day`, and moves `days_to` past it; false when another process got there first.
   */
  async rollDay(day: number): Promise<boolean> {
    const rolled = await this.rollDayRows(day);
    // PostgreSQL: mark the day's pages all-visible, so a tag's range is read by an index-only scan
    // of price_hours_cover (without it the planner walked the hour index and filtered every tag of
    // the range: a week 2.3× slower at 30 days of history than at 7). An insert-only table's vacuum
    // visits only the pages written since the last one.
    if (rolled && this.dialect === 'postgres') await sql`vacuum (analyze) price_hours`.execute(this.db);
    return rolled;
  }

  private async rollDayRows(day: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('price_rollup_state').set({ days_to: day + DAY_MS }).where('id', '=', 1).where('days_to', '=', day).executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await trx.deleteFrom('price_days').where('day', '=', day).execute();
      await trx.deleteFrom('price_bin_days').where('day', '=', day).execute();
      const rows = await trx.selectFrom('price_hours').selectAll().where('hour', '>=', day).where('hour', '<', day + DAY_MS).execute();
      const groups = new Map<string, StoredCell[]>();
      for (const r of rows) {
        const k = `${r.tag}\u0000${r.variant}`;
        const c = cellOfRow(r, Number(r.hour));
        const list = groups.get(k);
        if (list) list.push(c);
        else groups.set(k, [c]);
      }
      const days = [];
      for (const list of groups.values()) {
        const m = mergeCells(list)!;
        days.push({ tag: list[0]!.tag, variant: list[0]!.variant, day, count: m.count, items: m.items, coins: m.coins, sum: m.sum, min: m.min, max: m.max, prices: encodePrices(m.prices) });
      }
      await bulkInsert(trx, this.dialect, DAYS, days);
      const bins = await trx.selectFrom('price_bin_hours').selectAll().where('hour', '>=', day).where('hour', '<', day + DAY_MS).execute();
      const lowest = new Map<string, { tag: string; variant: string; day: number; lowest: number; uuid: string }>();
      for (const b of bins) {
        const k = `${b.tag}\u0000${b.variant}`;
        const e = lowest.get(k);
        if (!e || Number(b.lowest) < e.lowest) lowest.set(k, { tag: b.tag, variant: b.variant, day, lowest: Number(b.lowest), uuid: b.uuid });
      }
      await bulkInsert(trx, this.dialect, BIN_DAYS, [...lowest.values()]);
      return true;
    });
  }

  /**
   * Rolls up again from `to` on (sales were stored for hours already rolled up: a history replay):
   * `rolled_to` moves back to `to`, `days_to` to the day holding it. Rolling an hour or a day again
   * replaces its rows. Before the rollup started (0) nothing changes: it starts at the first sale.
   */
  async rewind(to: number): Promise<void> {
    const hour = Math.floor(to / HOUR_MS) * HOUR_MS;
    await this.db.updateTable('price_rollup_state').set({ rolled_to: hour }).where('id', '=', 1).where('rolled_to', '>', hour).execute();
    const day = Math.floor(hour / DAY_MS) * DAY_MS;
    await this.db.updateTable('price_rollup_state').set({ days_to: day }).where('id', '=', 1).where('days_to', '>', day).where('rolled_to', '>', 0).execute();
  }

  /** Records lowest BINs seen in hour `hour` (keeping the lower of what the hour already had). */
  async recordBins(hour: number, bins: ReadonlyArray<{ tag: string; variant: string; lowest: number; uuid: string }>): Promise<void> {
    await bulkInsert(this.db, this.dialect, BIN_HOURS, bins.map((b) => ({ ...b, hour })));
  }

  /** Hourly cells of a tag and variant with `from` ≤ hour < `to`, oldest first. */
  async hours(tag: string, variant: string, from: number, to: number): Promise<StoredCell[]> {
    const rows = await this.db.selectFrom('price_hours').selectAll().where('tag', '=', tag).where('variant', '=', variant).where('hour', '>=', from).where('hour', '<', to).orderBy('hour').execute();
    return rows.map((r) => cellOfRow(r, Number(r.hour)));
  }

  /** Daily cells of a tag and variant with `from` ≤ day < `to`, oldest first. */
  async days(tag: string, variant: string, from: number, to: number): Promise<StoredCell[]> {
    const rows = await this.db.selectFrom('price_days').selectAll().where('tag', '=', tag).where('variant', '=', variant).where('day', '>=', from).where('day', '<', to).orderBy('day').execute();
    return rows.map((r) => cellOfRow(r, Number(r.day)));
  }

  /** Lowest BINs per hour of a tag and variant with `from` ≤ hour < `to`. */
  async binHours(tag: string, variant: string, from: number, to: number): Promise<StoredBin[]> {
    const rows = await this.db.selectFrom('price_bin_hours').selectAll().where('tag', '=', tag).where('variant', '=', variant).where('hour', '>=', from).where('hour', '<', to).orderBy('hour').execute();
    return rows.map((r) => ({ tag: r.tag, variant: r.variant, at: Number(r.hour), lowest: Number(r.lowest), uuid: r.uuid }));
  }

  /** Lowest BINs per day of a tag and variant with `from` ≤ day < `to`. */
  async binDays(tag: string, variant: string, from: number, to: number): Promise<StoredBin[]> {
    const rows = await this.db.selectFrom('price_bin_days').selectAll().where('tag', '=', tag).where('variant', '=', variant).where('day', '>=', from).where('day', '<', to).orderBy('day').execute();
    return rows.map((r) => ({ tag: r.tag, variant: r.variant, at: Number(r.day), lowest: Number(r.lowest), uuid: r.uuid }));
  }

  /** The tag's variants with a rolled-up hour in [from, to) ('' included). */
  async variantsOf(tag: string, from: number, to: number): Promise<string[]> {
    const rows = await this.db.selectFrom('price_hours').select('variant').distinct().where('tag', '=', tag).where('hour', '>=', from).where('hour', '<', to).execute();
    return rows.map((r) => r.variant).sort();
  }

  /** The first rolled-up hour with a sale (how far back the averages can look), or null. */
  async firstHour(): Promise<number | null> {
    const row = await this.db.selectFrom('price_hours').select((eb) => eb.fn.min('hour').as('first')).executeTakeFirst();
    return row?.first === null || row?.first === undefined ? null : Number(row.first);
  }

  /**
   * Every tag and variant's totals over the rolled-up hours [from, to): count, items, sum, min, max,
   * the median of their digests and the mean of their hourly lowest BINs. Reads every cell of the
   * window once (a 7-day window: ~170 hours × the variants that sold), grouped as it goes.
   */
  async averages(from: number, to: number): Promise<VariantAverage[]> {
    const out = new Map<string, { cells: PriceCell[]; avg: VariantAverage }>();
    const entry = (tag: string, variant: string) => {
      const k = `${tag}\u0000${variant}`;
      let e = out.get(k);
      if (!e) out.set(k, (e = { cells: [], avg: { tag, variant, count: 0, items: 0, coins: 0, sum: 0, min: Infinity, max: -Infinity, median: null, lowestBinAverage: null, lowestBinHours: 0, clean: { count: 0, mean: null } } }));
      return e;
    };
    // A day at a time: memory bounded by one day's cells plus the groups.
    for (let t = from; t < to; t += DAY_MS) {
      const rows = await this.db.selectFrom('price_hours').selectAll().where('hour', '>=', t).where('hour', '<', Math.min(to, t + DAY_MS)).execute();
      for (const r of rows) entry(r.tag, r.variant).cells.push(cellOfRow(r, Number(r.hour)));
    }
    const { rows: bins } = await sql<{ tag: string; variant: string; n: number | string; mean: number | string }>`
      select tag, variant, count(*) as n, avg(lowest) as mean from price_bin_hours where hour >= ${from} and hour < ${to} group by tag, variant`.execute(this.db);
    for (const b of bins) {
      const e = entry(b.tag, b.variant);
      e.avg.lowestBinHours = Number(b.n);
      e.avg.lowestBinAverage = Number(b.mean);
    }
    const result: VariantAverage[] = [];
    for (const { cells, avg } of out.values()) {
      const m = mergeCells(cells);
      if (m) Object.assign(avg, { count: m.count, items: m.items, coins: m.coins, sum: m.sum, min: m.min, max: m.max });
      else Object.assign(avg, { min: 0, max: 0 });
      avg.median = cells.length > 0 ? medianOfCells(cells) : null;
      avg.clean = cleanSales(cells);
      result.push(avg);
    }
    return result;
  }
}


