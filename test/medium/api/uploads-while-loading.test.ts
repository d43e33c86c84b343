/**
 * Issue 45 item 1: upload bombs while the demo history loads. Two concurrent 15 KB gzip uploads of
 * a profiles document whose one profile holds `"f": [[],[],…]` (15.6 MB inflated), plus an
 * auctions page over its cap, sent while the simulator's history replays into the store. Both
 * shared the event loop's turns: the replay took one turn per batch (a minute of history, a few
 * payloads of SQL), an upload a turn per 16 KB piece, ~950 turns, so the uploads waited 52-60 s.
 *
 * Counted, not timed: the pieces each upload is read in (bounded by its cap, not by what the turns
 * cost), the pieces scanned and the history payloads applied within one turn of the event loop,
 * and that the uploads were answered while the history was still loading.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, it } from 'node:test';
import { UPLOAD_PIECE_BYTES, UPLOAD_QUEUE, UPLOAD_SLOTS } from '../../../src/api/data.ts';
import { PROXY_KIND_MAX_BYTES, UploadScanner } from '../../../src/domain/uploads.ts';
import { BazaarIngester } from '../../../src/ingest/bazaar.ts';
import { EndedIngester } from '../../../src/ingest/ended.ts';
import { ingestHistory } from '../../../src/ingest/history.ts';
import { ResourcesIngester } from '../../../src/ingest/resources.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const profilesBomb = gzipSync(`{"success":true,"profiles":[{"profile_id":"p","f":[${'[],'.repeat(5_200_000)}[]]}]}`, { level: 9 });
const pageOverCap = gzipSync(`{"success":true,"page":0,"totalPages":1,"auctions":[{"uuid":"a","item_bytes":"b","x":[${'[],'.repeat(2_000_000)}[]]}]}`, { level: 9 });
const PROFILES_INFLATED = 15_600_057;

/** Counts, per turn of the event loop (a chain of setImmediate callbacks, one per turn), what ran in it. */
class TurnCounter {
  turn = 0;
  private running = true;
  readonly counts = new Map<string, Map<number, number>>();
  constructor() {
    const spin = () => {
      if (!this.running) return;
      this.turn++;
      setImmediate(spin);
    };
    setImmediate(spin);
  }
  note(what: string): void {
    const perTurn = this.counts.get(what) ?? new Map<number, number>();
    this.counts.set(what, perTurn);
    perTurn.set(this.turn, (perTurn.get(this.turn) ?? 0) + 1);
  }
  total(what: string): number {
    return [...(this.counts.get(what)?.values() ?? [])].reduce((a, b) => a + b, 0);
  }
  mostInOneTurn(what: string): number {
    return Math.max(0, ...(this.counts.get(what)?.values() ?? []));
  }
  stop(): void {
    this.running = false;
  }
}

/** Wraps `target[name]` so every call is noted first; answers the undo. */
function counting<T extends object>(target: T, name: keyof T & string, note: () => void): () => void {
  const original = target[name] as (...args: unknown[]) => unknown;
  (target as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
    note();
    return original.apply(this, args);
  };
  return () => {
    (target as Record<string, unknown>)[name] = original;
  };
}

describeEachBackend('upload bombs while the demo history loads (issue 45 item 1)', (fixture) => {
  let t: TestApp;
  let sim: SimulatorHandle;
  before(async () => {
    t = await createTestApp({ store: fixture().store });
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, seed: 45, auctions: 200, products: 20, backfillMs: 6 * 3_600_000, port: 0 }, { clock: t.clock, tickMs: 0 });
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  it('answers the uploads while the history loads, each read in pieces bounded by its cap, neither holding the loop for more than one unit', async () => {
    const ctx = testIngestContext({ store: t.store, clock: t.clock, baseUrl: sim.url, source: 'simulator' });
    await new ResourcesIngester(ctx).pollItems();
    const turns = new TurnCounter();
    const history = () => turns.note('history payload');
    const undo = [
      counting(BazaarIngester.prototype, 'apply', history),
      counting(EndedIngester.prototype, 'apply', history),
      counting(ResourcesIngester.prototype, 'applyElection', history),
      counting(t.store.priceRollups, 'recordBins', history),
      counting(UploadScanner.prototype, 'write', () => turns.note('upload piece')),
    ];
    let historyDone = false;
    let cutHistory = false;
    // The rest of the history is not needed once the uploads are answered.
    function* backfill() {
      for (const batch of sim.backfill()) {
        if (cutHistory) return;
        yield batch;
      }
    }
    try {
      const loading = ingestHistory(backfill(), ctx).finally(() => (historyDone = true));
      // The history is under way before the uploads arrive, as on a fresh demo.
      while (turns.total('history payload') < 5) await new Promise((resolve) => setImmediate(resolve));
      const send = async (payload: Buffer) => {
        const res = await t.app.inject({ method: 'POST', url: '/api/data/proxy', payload, headers: { 'content-encoding': 'gzip' } });
        return { status: res.statusCode, slug: res.statusCode === 200 ? '' : res.json().slug, whileLoading: !historyDone, historyPayloads: turns.total('history payload') };
      };
      const started = turns.total('history payload');
      const answers = await Promise.all([send(profilesBomb), send(profilesBomb), send(pageOverCap)]);
      cutHistory = true;
      const result = await loading;
      assert.deepEqual(answers.map((a) => [a.status, a.slug]), [[200, ''], [200, ''], [413, 'body_too_large']]);
      // Pieces: the two profiles whole (15.6 MB each), the page up to just past its cap: each piece
      // waits a turn of the loop, so 64 per 16 MB at most (16 KB pieces were ~2,200 here).
      const pieces = turns.total('upload piece');
      const bound = 2 * Math.ceil(PROFILES_INFLATED / UPLOAD_PIECE_BYTES) + Math.ceil(PROXY_KIND_MAX_BYTES.auctions_page / UPLOAD_PIECE_BYTES) + 3;
      assert.ok(bound <= 2 * 64 + 16 + 3, `the pieces are at least 256 KB (bound ${bound})`);
      assert.ok(pieces <= bound, `${pieces} pieces scanned, bound ${bound}`);
      // One turn of the loop runs at most one piece per lane slot (two when the gzip stream had one buffered),
      // and at most one history payload.
      assert.ok(turns.mostInOneTurn('upload piece') <= 2 * UPLOAD_SLOTS, `${turns.mostInOneTurn('upload piece')} pieces in one turn`);
      assert.equal(turns.mostInOneTurn('history payload'), 1, 'one history payload per turn of the event loop');
      // Answered while the history was still loading (before the fix it finished first).
      assert.ok(answers.every((a) => a.whileLoading), JSON.stringify(answers));
      assert.ok(result.sales > 0, JSON.stringify(result));
      console.log(
        `# ${pieces} pieces; history payloads during the uploads: ${answers.map((a) => a.historyPayloads - started).join(', ')} of ${turns.total('history payload')}; ${turns.turn} turns`,
      );
    } finally {
      turns.stop();
      for (const u of undo) u();
    }
  });

  it(`refuses uploads beyond ${UPLOAD_SLOTS} being read and ${UPLOAD_QUEUE} waiting with 503 busy and Retry-After, and keeps none of those`, async () => {
    const storedBefore = (await t.store.dataUploads.recent('profiles', 100)).length;
    const sent = UPLOAD_SLOTS + UPLOAD_QUEUE + 3;
    const answers = await Promise.all(
      Array.from({ length: sent }, () => t.app.inject({ method: 'POST', url: '/api/data/proxy', payload: profilesBomb, headers: { 'content-encoding': 'gzip' }, remoteAddress: '10.45.0.1' })),
    );
    const busy = answers.filter((r) => r.statusCode === 503);
    assert.equal(answers.filter((r) => r.statusCode === 200).length + busy.length, sent, answers.map((r) => r.statusCode).join(' '));
    assert.ok(busy.length >= 3, `${busy.length} refused of ${sent}`);
    for (const r of busy) {
      assert.equal(r.json().slug, 'busy');
      assert.equal(r.headers['content-type'], 'application/problem+json');
      assert.equal(r.headers['retry-after'], '1');
    }
    assert.equal((await t.store.dataUploads.recent('profiles', 100)).length - storedBefore, sent - busy.length);
    // The lane is free again once they are answered.
    const again = await t.app.inject({ method: 'POST', url: '/api/data/proxy', payload: profilesBomb, headers: { 'content-encoding': 'gzip' }, remoteAddress: '10.45.0.1' });
    assert.equal(again.statusCode, 200, again.body);
  });
});
