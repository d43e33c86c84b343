/**
 * The service restarted on a store holding the history its flips read (400,000 sales over 15 days: the
 * 14-day window and a day older) stays within its memory budget: the auction-driven flips read sales
 * rolled up per variant and hour, never every sale of their windows (which had exhausted a 512 MB heap
 * on a week of history, ~1 KB a sale held; docs/flips.md). The service runs as a real process with a
 * 256 MB heap limit; holding the ~373,000 sales of the 14-day window in memory would end it.
 *
 * This test used to store 1,000,000 sales over 30 days, the largest single cost of `npm test`: the
 * sales older than 14 days are stored but never read (the rollup job's first run rolls up the last
 * 14 days, the flips read no further back), and ~373,000 held sales are still well over the heap limit.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Store } from '../../../src/store/index.ts';
import { dropSchema, IN_CI, POSTGRES_TEST_URL, postgresUnavailable, uniqueSchema, type Backend } from '../../helpers/databases.ts';
import { storeManySales } from '../../helpers/sales-history.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { waitUntil } from '../../helpers/wait.ts';

const CLI = join(import.meta.dirname, '../../../src/cli.ts');
const SALES = 400_000;
const DAYS = 15;
const HEAP_MB = 256;
const RSS_BUDGET_MB = 512;

function rssOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

for (const backend of ['sqlite', 'postgres'] as Backend[]) {
  const unavailable = backend === 'postgres' && postgresUnavailable && !IN_CI;
  if (unavailable) console.log(`# SKIP restart on ${DAYS} days of history [postgres]: PostgreSQL unreachable (${postgresUnavailable})`);
  describe(`restart on ${DAYS} days of history [${backend}]`, { skip: unavailable ? 'PostgreSQL unreachable' : false }, () => {
    const dir = tempDir('restart');
    const schema = uniqueSchema('restart');
    const url = new URL(POSTGRES_TEST_URL);
    url.searchParams.set('schema', schema);
    const databaseUrl = backend === 'postgres' ? url.toString() : undefined;
    const now = Date.now();
    let sales = 0;
    let premium = '';

    before(async () => {
      const store = await Store.open({ dataDir: dir.path, databaseUrl, schema: backend === 'postgres' ? schema : undefined });
      try {
        sales = await storeManySales(store, { now, days: DAYS, sales: SALES, seed: 3 });
        premium = (await store.accounts.create({ tier: 'premium', now })).token;
      } finally {
        await store.close();
      }
    });
    after(async () => {
      dir.remove();
      if (backend === 'postgres') await dropSchema(schema);
    });

    it(`computes the auction flips within a ${HEAP_MB} MB heap and ${RSS_BUDGET_MB} MB of RSS`, { timeout: 600_000 }, async () => {
      assert.ok(sales >= SALES, `the store holds ${sales} sales`);
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'debug', DATA_DIR: dir.path, UPSTREAM_URL: 'http://127.0.0.1:9', PORT: '0', HOST: '127.0.0.1' };
      if (databaseUrl) env.DATABASE_URL = databaseUrl;
      const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--import', 'tsx', CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let exited: number | string | null | undefined;
      child.on('exit', (code, signal) => (exited = code ?? signal));
      child.stderr.on('data', (d) => (output += d));
      const computed = new Promise<Record<string, unknown>>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          output += d;
          for (const line of d.toString().split('\n')) {
            if (line.includes('"auction flips computed"')) resolve(JSON.parse(line) as Record<string, unknown>);
          }
        });
      });
      let peak = 0;
      const sampler = setInterval(() => {
        const m = rssOf(child.pid!);
        if (m) peak = Math.max(peak, m.hwm);
      }, 200);
      try {
        const started = Date.now();
        const result = await Promise.race([
          computed,
          new Promise<never>((_, reject) => {
            const check = setInterval(() => {
              if (exited !== undefined) {
                clearInterval(check);
                reject(new Error(`the service exited (${exited}) before computing flips: ${output.slice(-3000)}`));
              } else if (Date.now() - started > 540_000) {
                clearInterval(check);
                reject(new Error(`no auction flips within 9 minutes: ${output.slice(-3000)}`));
              }
            }, 250);
          }),
        ]);
        assert.ok(Number(result.targets) > 0, `target variants found in the history (${JSON.stringify(result)})`);
        // Then it serves what it computed (an answer that reads the flips), within the budget too:
        // waited for by that answer, not for a fixed time.
        const listening = () => /(http:\/\/127\.0\.0\.1:\d+)\/api\/health/.exec(output)?.[1];
        await waitUntil(() => listening() !== undefined || exited !== undefined, 120_000, 'the service to say where it listens');
        const base = listening();
        assert.ok(base, `the service said where it listens: ${output.slice(-2000)}`);
        const flips = await fetch(`${base}/api/flip/attribute`, { headers: { authorization: `Bearer ${premium}` }, signal: AbortSignal.timeout(120_000) });
        assert.equal(flips.status, 200, await flips.clone().text());
        assert.ok(Array.isArray(await flips.json()));
        assert.equal(exited, undefined, `still running: ${output.slice(-2000)}`);
        const m = rssOf(child.pid!);
        if (m) peak = Math.max(peak, m.hwm);
        console.log(`# restart on ${sales} sales [${backend}]: flips after ${Math.round((Date.now() - started) / 1000)} s, peak RSS ${Math.round(peak)} MB`);
        assert.ok(peak < RSS_BUDGET_MB, `peak RSS ${Math.round(peak)} MB`);
      } finally {
        clearInterval(sampler);
        child.kill('SIGTERM');
        await new Promise((resolve) => (exited !== undefined ? resolve(null) : child.once('exit', resolve)));
      }
    });
  });
}
