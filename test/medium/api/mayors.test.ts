/**
 * Mayor terms over HTTP on SQLite and PostgreSQL: a month of the simulator's election resources
 * is replayed through the ingester (as history ingestion does), then read back as ElectionPeriods.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SKYBLOCK_EPOCH_MS, SKYBLOCK_YEAR_MS, TERM_START_DAY } from '../../../src/domain/skyblock-calendar.ts';
import { ResourcesIngester } from '../../../src/ingest/resources.ts';
import { Market } from '../../../src/simulator/market.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const DAY = 86_400_000;

interface Period {
  year: number;
  start: string;
  end: string;
  id: string;
  winner: { key: string; name: string; votes: number; perks: Array<{ name: string; description: string; minister: boolean }>; minister: { key: string; name: string; perk: { name: string } | null } | null };
  candidates: Array<{ key: string; name: string; votes: number; perks: unknown[] }>;
}

describeEachBackend('mayor terms', (fixture) => {
  let t: TestApp;
  let sim: Market;
  let stored: number[];

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    const now = t.clock.now();
    sim = new Market({ seed: 5, auctions: 50, generationSeconds: 60, bazaarSeconds: 20 }, now);
    const resources = new ResourcesIngester(testIngestContext({ store: t.store, clock: t.clock }));
    for (const batch of sim.backfill(now - 30 * DAY, now, { bazaar: false, auctionsEnded: false, batchMs: DAY })) {
      for (const e of batch.elections) await resources.applyElection(e, 'payload');
    }
    await resources.applyElection(sim.electionAt(now));
    stored = (await t.store.elections.inYears(0, 1e9, 1000)).map((e) => e.year);
  });
  after(() => t.close());

  test('a month of history holds six terms that tile the calendar, each in the ElectionPeriod shape', async () => {
    assert.ok(stored.length >= 6 && stored.length <= 7, `${stored.length} elections stored`);
    const res = await t.app.inject('/api/mayor');
    assert.equal(res.statusCode, 200);
    const periods = res.json() as Period[];
    assert.deepEqual(periods.map((p) => p.year), stored, 'every stored election, oldest first');
    const termOffset = Math.round((SKYBLOCK_YEAR_MS * TERM_START_DAY) / 372);
    for (const [i, p] of periods.entries()) {
      assert.deepEqual(Object.keys(p), ['year', 'start', 'end', 'id', 'winner', 'candidates']);
      const start = Date.parse(p.start);
      assert.equal((start - SKYBLOCK_EPOCH_MS) % SKYBLOCK_YEAR_MS, termOffset, 'terms start on Late Spring 27');
      assert.equal(Date.parse(p.end) - start, SKYBLOCK_YEAR_MS);
      if (i > 0) assert.equal(p.start, periods[i - 1]!.end, 'consecutive terms meet');
      // The simulator's mayor in office during the term is the period's winner: calendar and data agree.
      assert.equal(sim.mayorKeyAt(start + 1000), p.winner.key);
      assert.equal(sim.mayorKeyAt(Date.parse(p.end) - 1000), p.winner.key);
      assert.equal(p.candidates.length, 5);
      assert.equal(p.winner.votes, Math.max(...p.candidates.map((c) => c.votes)), 'the winner had the most votes');
      assert.ok(p.winner.perks.length >= 2 && p.winner.perks.every((k) => k.name !== '' && typeof k.minister === 'boolean'));
      assert.ok(p.winner.minister && p.winner.minister.key !== p.winner.key && p.winner.minister.perk?.name);
    }
    const current = periods.at(-1)!;
    const now = t.clock.now();
    assert.ok(Date.parse(current.start) <= now && now < Date.parse(current.end), 'the newest term holds now');
  });

  test('from/to select the overlapping terms; one year by /api/mayor/{year}', async () => {
    const all = (await t.app.inject('/api/mayor')).json() as Period[];
    const second = all[1]!;
    const inside = new Date(Date.parse(second.start) + DAY).toISOString();
    assert.deepEqual((await t.app.inject(`/api/mayor?from=${inside}&to=${inside}`)).json(), [second]);
    const span = (await t.app.inject(`/api/mayor?from=${second.start}&to=${all[3]!.start}`)).json() as Period[];
    assert.deepEqual(span.map((p) => p.year), [second.year, all[2]!.year, all[3]!.year]);
    const before = (await t.app.inject(`/api/mayor?to=${new Date(Date.parse(all[0]!.start) - DAY * 30).toISOString()}`)).json();
    assert.deepEqual(before, [], 'nothing stored that far back');
    const one = await t.app.inject(`/api/mayor/${second.year}`);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), second);
  });

  test('bad input is a 4xx problem', async () => {
    const cases: Array<[string, number, string]> = [
      ['/api/mayor/1', 404, 'election_not_found'],
      ['/api/mayor/0', 400, 'invalid_year'],
      ['/api/mayor/abc', 400, 'invalid_year'],
      ['/api/mayor/12345678901', 400, 'invalid_year'],
      ['/api/mayor?from=yesterday', 400, 'invalid_date'],
      ['/api/mayor?from=2026-11-22&to=2026-11-01', 400, 'invalid_range'],
    ];
    for (const [url, status, slug] of cases) {
      const res = await t.app.inject(url);
      assert.equal(res.statusCode, status, url);
      assert.equal((res.json() as { slug: string }).slug, slug, url);
      assert.match(String(res.headers['content-type']), /problem\+json/);
    }
  });
});
