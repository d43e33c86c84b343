/**
 * Planner statistics (PostgreSQL). Without them the planner guesses one row per condition and
 * picks indexes badly: a keyset chunk of one item's sales walked every sale of the item through
 * (tag, state, starting_bid) instead of (tag, sold_at) — 87 ms instead of 1.6 ms per chunk — and
 * an item-uid lookup walked every sold auction through (state, end_at). Autovacuum keeps them
 * current when it runs; after a bulk load (a backfill, a cold first generation) the service
 * analyzes at once rather than waiting for it, and when autovacuum is off the jobs keep them
 * current themselves (see Jobs). SQLite's planner runs without statistics here on purpose (its
 * queries are written for that): every method is a no-op there.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import type { Database } from '../schema.ts';

export interface StatisticsSettings {
  /** `autovacuum`: the server analyzes changed tables itself */
  autovacuum: boolean;
  /** `track_counts`: per-table change counts exist (autovacuum and `stale` need them) */
  trackCounts: boolean;
}

/** PostgreSQL's defaults for autovacuum_analyze_threshold and autovacuum_analyze_scale_factor. */
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE_FACTOR = 0.1;
const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;

export class StatisticsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** The server's autovacuum settings; undefined on SQLite. */
  async settings(): Promise<StatisticsSettings | undefined> {
    if (this.dialect !== 'postgres') return undefined;
    const { rows } = await sql<{ name: string; setting: string }>`select name, setting from pg_settings where name in ('autovacuum', 'track_counts')`.execute(this.db);
    const on = (name: string) => rows.find((r) => r.name === name)?.setting === 'on';
    return { autovacuum: on('autovacuum'), trackCounts: on('track_counts') };
  }

  /**
   * Tables of this schema whose statistics are missing (never analyzed) or, with `outdated`,
   * changed since their last analysis by more than autovacuum's default threshold
   * (50 rows + 10 %). Partitions count as tables. A partitioned table (`auctions` on PostgreSQL,
   * migration 019) has no change count of its own and autovacuum never analyzes it: it is outdated
   * when its partitions' changes since their last analysis pass the threshold over their rows, and
   * then stands for them (analyzing it analyzes every partition, so they are not listed as well).
   */
  async stale(options: { outdated?: boolean } = {}): Promise<string[]> {
    if (this.dialect !== 'postgres') return [];
    const settings = await this.settings();
    const { rows } = await sql<{
      name: string;
      parent: string | null;
      reltuples: number;
      modified: string | null;
      partition_tuples: number | null;
      analyzed: Date | null;
      stats: boolean;
    }>`
      select c.relname as name, c.reltuples,
             coalesce(s.last_analyze, s.last_autoanalyze) as analyzed, s.relid is not null as stats,
             (select p.relname from pg_inherits i join pg_class p on p.oid = i.inhparent where i.inhrelid = c.oid) as parent,
             case when c.relkind = 'p' then (select sum(greatest(k.reltuples, 0)) from pg_inherits i join pg_class k on k.oid = i.inhrelid where i.inhparent = c.oid) end as partition_tuples,
             case when c.relkind = 'p' then (select sum(ks.n_mod_since_analyze) from pg_inherits i join pg_stat_user_tables ks on ks.relid = i.inhrelid where i.inhparent = c.oid)
                  else s.n_mod_since_analyze end as modified
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_stat_user_tables s on s.relid = c.oid
      where n.nspname = current_schema() and c.relkind in ('r', 'p')
      order by c.relname`.execute(this.db);
    const listed = rows.filter((r) => {
      const tuples = Number(r.reltuples);
      // reltuples is -1 until the first VACUUM or ANALYZE (PostgreSQL 14+); without
      // track_counts the last-analyze times are not kept, so only that sign is trusted.
      if (tuples < 0) return true;
      if (!settings?.trackCounts) return false;
      if (r.stats && r.analyzed === null) return true;
      const over = r.partition_tuples === null ? tuples : Number(r.partition_tuples);
      return options.outdated === true && Number(r.modified ?? 0) > ANALYZE_THRESHOLD + ANALYZE_SCALE_FACTOR * over;
    });
    const names = new Set(listed.map((r) => r.name));
    return listed.filter((r) => r.parent === null || !names.has(r.parent)).map((r) => r.name);
  }

  /** ANALYZE these tables (PostgreSQL); nothing on SQLite. */
  async analyze(tables: readonly string[]): Promise<void> {
    if (this.dialect !== 'postgres' || tables.length === 0) return;
    for (const table of tables) if (!TABLE_NAME.test(table)) throw new Error(`not a table name: ${table}`);
    await sql`analyze ${sql.join(tables.map((t) => sql.table(t)))}`.execute(this.db);
  }

  /** Analyzes the stale tables (see `stale`); returns their names. */
  async refresh(options: { outdated?: boolean } = {}): Promise<string[]> {
    const tables = await this.stale(options);
    await this.analyze(tables);
    return tables;
  }
}
