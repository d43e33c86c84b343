/**
 * Planner statistics: a history replay (the simulator's backfill) leaves PostgreSQL with current
 * statistics, so the item-uid and keyset sold reads use their indexes at once; the jobs' pass
 * analyzes never-analyzed tables, and changed ones when autovacuum is off. No-ops on SQLite.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../../../src/clock.ts';
import type { IngestContext } from '../../../src/ingest/context.ts';
import { ingestHistory } from '../../../src/ingest/history.ts';
import { StatisticsJob } from '../../../src/jobs/statistics.ts';
import { createLogger } from '../../../src/logger.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { SIM_START } from '../../helpers/sim-market.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const DAY = 86_400_000;

describeEachBackend('planner statistics', (fixture) => {
  let sim: SimulatorHandle;
  let ctx: IngestContext;
  let plansBefore: string[] = [];

  /** The plan PostgreSQL picks for one page of an item's sales, and for a keyset chunk of a tag's sales (the repository's queries). */
  async function plans(): Promise<{ uid: string; keyset: string; uidValue: string; tag: string }> {
    const { store } = fixture();
    const db = store.kysely;
    const top = await db
      .selectFrom('auctions')
      .select(['item_uid', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'sold')
      .where('item_uid', 'is not', null)
      .groupBy('item_uid')
      .orderBy('n', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const busiest = await db
      .selectFrom('auctions')
      .select(['tag', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'sold')
      .groupBy('tag')
      .orderBy('n', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const newest = await db.selectFrom('auctions').select(['sold_at', 'uuid']).where('state', '=', 'sold').where('tag', '=', busiest.tag).orderBy('sold_at', 'desc').orderBy('uuid').offset(Math.floor(Number(busiest.n) / 2)).limit(1).executeTakeFirstOrThrow();
    const explain = async (text: ReturnType<typeof sql<unknown>>) => ((await text.execute(db)).rows as Array<Record<string, string>>).map((r) => Object.values(r)[0]).join('\n');
    const uid = await explain(sql`explain select uuid, tag, item_uid, seller, buyer, sold_price, highest_bid, sold_at, end_at from auctions
      where item_uid = ${top.item_uid} and state = 'sold' order by sold_at desc, uuid limit 101 offset 0`);
    const keyset = await explain(sql`explain select uuid, sold_price, highest_bid, count, start_at, sold_at, end_at, bin, seller from auctions
      where state = 'sold' and tag = ${busiest.tag} and sold_at >= ${Number(newest.sold_at) - 30 * DAY}
        and sold_at <= ${Number(newest.sold_at)} and (sold_at < ${Number(newest.sold_at)} or uuid > ${newest.uuid})
      order by sold_at desc, uuid limit 1000`);
    return { uid, keyset, uidValue: top.item_uid!, tag: busiest.tag };
  }

  before(async () => {
    const { store } = fixture();
    const clock = new ManualClock(SIM_START);
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, seed: 5, auctions: 1500, backfillMs: DAY / 12, port: 0 }, { clock, tickMs: 0 });
    ctx = testIngestContext({ store, clock, baseUrl: sim.url, source: 'simulator' });
  });
  after(async () => {
    await ctx.client.close();
    await sim.close();
  });

  it('a fresh store: the settings, and every table never analyzed (PostgreSQL)', async () => {
    const { store, backend } = fixture();
    const settings = await store.statistics.settings();
    const stale = await store.statistics.stale();
    if (backend === 'sqlite') {
      assert.equal(settings, undefined);
      assert.deepEqual(stale, []);
      assert.deepEqual(await store.statistics.refresh({ outdated: true }), []);
      return;
    }
    assert.equal(typeof settings?.autovacuum, 'boolean');
    assert.ok(stale.includes('auctions') && stale.includes('bids'), stale.join());
  });

  it('after a history replay (the simulator backfill) the uid and keyset sold reads use their indexes', async (t) => {
    const { store, backend } = fixture();
    // Before the replay's own refresh, what the planner would do on the loaded table without statistics.
    const original = store.statistics.refresh.bind(store.statistics);
    if (backend === 'postgres') {
      store.statistics.refresh = async (options) => {
        plansBefore = Object.values(await plans()).slice(0, 2);
        return original(options);
      };
    }
    let result;
    try {
      result = await ingestHistory(sim.backfill({ detailedMs: 0, bazaar: false }), ctx);
    } finally {
      store.statistics.refresh = original;
    }
    assert.ok(result.sales > 1_000, `${result.sales} sales replayed`);
    t.diagnostic(`${result.sales} sales replayed`);
    if (backend === 'sqlite') return;
    assert.deepEqual(await store.statistics.stale(), [], 'nothing left never analyzed');
    const after = await plans();
    t.diagnostic(`without statistics:\n${plansBefore.join('\n---\n')}`);
    t.diagnostic(`after the replay:\n${after.uid}\n---\n${after.keyset}`);
    // PostgreSQL partitions auctions by month (migration 019): a plan names each month's copy of an
    // index (auctions_m202611_item_uid_sold_at_idx for auctions_item_uid), and may scan the empty
    // default partition sequentially (no pages: it costs nothing), never a month's partition.
    const { rows: inDefault } = await sql<{ n: string }>`select count(*) as n from auctions_default`.execute(store.kysely);
    assert.equal(Number(inDefault[0]!.n), 0, 'the default partition is empty');
    const tableScan = /Seq Scan on (?!auctions_default\b)/;
    // The item's rows through its index alone (without statistics: ANDed with every sold auction's entry in (state, end_at)).
    assert.match(after.uid, /(Index Scan using|Bitmap Index Scan on) auctions_(m\d+_)?item_uid(_sold_at_idx)?\b/, after.uid);
    assert.doesNotMatch(after.uid, /auctions_state_end|auctions_(m\d+_)?tag_sold_at|auctions_tag_state_price/, after.uid);
    assert.doesNotMatch(after.uid, tableScan, after.uid);
    // The chunk through (tag, sold_at), not every sale of the tag through (tag, state, starting_bid).
    assert.match(after.keyset, /auctions_(m\d+_)?tag_sold_at/, after.keyset);
    assert.doesNotMatch(after.keyset, /auctions_tag_state_price/, after.keyset);
    assert.doesNotMatch(after.keyset, tableScan, after.keyset);
  });

  it('the jobs pass: changed tables are analyzed again only when autovacuum is off', async () => {
    const { store, backend } = fixture();
    const job = new StatisticsJob(store, createLogger('silent'));
    if (backend === 'sqlite') {
      assert.deepEqual(await job.runOnce(), []);
      return;
    }
    assert.deepEqual(await store.statistics.stale(), [], 'nothing never analyzed after the replay');
    const autovacuum = (await store.statistics.settings())!.autovacuum;
    // Change counts reach the statistics system up to about a second after their transaction, so
    // counts of the replay's last writes can arrive after its ANALYZE: let the job take those first.
    const settle = async () => {
      for (let i = 0; i < 20 && (await job.runOnce()).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 300));
    };
    await settle();
    // Change more than 10 % of the auctions table.
    await sql`update auctions set last_updated = last_updated + 1`.execute(store.kysely);
    if (autovacuum) {
      // The server analyzes it; the job only takes tables never analyzed.
      assert.ok(!(await job.runOnce()).includes('auctions'));
      return;
    }
    let outdated: string[] = [];
    for (let i = 0; i < 40 && !outdated.includes('auctions'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      outdated = await store.statistics.stale({ outdated: true });
    }
    assert.ok(outdated.includes('auctions'), `auctions counted as changed: ${outdated.join()}`);
    assert.ok(!(await store.statistics.stale()).includes('auctions'), 'but not as never analyzed');
    const analyzed = await job.runOnce();
    assert.ok(analyzed.includes('auctions'), `autovacuum off: analyzed ${analyzed.join()}`);
    await settle();
    assert.ok(!(await store.statistics.stale({ outdated: true })).includes('auctions'));
  });
});
