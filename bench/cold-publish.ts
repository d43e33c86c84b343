/**
 * The followers' share of a cold generation (issue 41), in process: the real ingester stores a fresh
 * simulated generation (60,000 auctions; quick: 10,000) in SQLite with the active-auctions view and the
 * live feeds' index (market/events.ts) following the store's spine, as in `serve` (role all). The CPU of
 * the spine's publish (the followers applying the change, inside the generation's timed span) against the
 * whole generation's CPU, and the CPU of what the followers do after it (the feeds' index of a baseline,
 * built in slices), 3 rounds (quick: 1), each in a fresh process and store. `npm run bench -- cold-publish`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { systemClock } from '../src/clock.ts';
import { AuctionIngester } from '../src/ingest/auctions.ts';
import { HypixelClient } from '../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { createLogger } from '../src/logger.ts';
import { ActiveAuctionsView } from '../src/market/active-auctions.ts';
import { MarketEvents } from '../src/market/events.ts';
import { Store } from '../src/store/index.ts';
import type { MarketChangeBody } from '../src/domain/market-change.ts';
import { median, type BenchOptions, type BenchRow } from './lib.ts';
import { spawnListening, stopProcess } from './load.ts';

interface Round {
  auctions: number;
  generationCpu: number;
  publishCpu: number;
  afterCpu: number;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/** One round: a fresh store, the view and the feeds' index following it, one cold generation from `base`. */
async function round(base: string): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-cold-publish-'));
  const store = await Store.open({ dataDir: dir });
  const client = new HypixelClient({ baseUrl: base, timeoutMs: 60_000, concurrency: 8 });
  const view = new ActiveAuctionsView(store, systemClock);
  const events = new MarketEvents(store, systemClock, { view });
  try {
    await view.ready();
    await events.start();
    const changes = store.changes;
    const publish = changes.publish.bind(changes);
    let publishCpu = 0;
    changes.publish = (body: MarketChangeBody) => {
      const c = process.cpuUsage();
      publish(body);
      publishCpu += cpuMs(c);
    };
    const ingester = new AuctionIngester({ client, store, clock: systemClock, logger: createLogger('silent'), metrics: new IngestMetrics(new Registry()), source: 'simulator' });
    const c0 = process.cpuUsage();
    const result = await ingester.pollOnce();
    if (result === 'unchanged') throw new Error('no generation');
    const generationCpu = cpuMs(c0);
    const c1 = process.cpuUsage();
    while (events.baselineLeft > 0) await new Promise((r) => setImmediate(r));
    const afterCpu = cpuMs(c1);
    if (view.size !== result.auctions || events.size !== view.size) throw new Error(`view ${view.size}, events ${events.size}, generation ${result.auctions}`);
    return { auctions: result.auctions, generationCpu, publishCpu, afterCpu };
  } finally {
    events.stop();
    view.close();
    await client.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const auctions = options.quick ? 10_000 : 60_000;
  const { url, child } = await spawnListening('simulator', [join(import.meta.dirname, '../bin/skymarket.js'), 'simulate', '--port', '0', '--host', '127.0.0.1'], {
    ...process.env,
    SIM_AUCTIONS: String(auctions),
    SIM_GENERATION_SECONDS: '3600',
    LOG_LEVEL: 'info',
  });
  const rounds: Round[] = [];
  try {
    for (let i = 0; i < (options.quick ? 1 : 3); i++) {
      // Each round in a process of its own: no pools, JIT or heap carried from the last.
      const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--round', url], { encoding: 'utf8' });
      rounds.push(JSON.parse(out.trim().split('\n').pop()!) as Round);
    }
  } finally {
    await stopProcess(child);
  }
  const share = rounds.map((r) => r.publishCpu / r.generationCpu);
  return [
    {
      name: `cold generation, in process: CPU of the spine's publish (the active-auctions view and the feeds' index applying the change) within the generation's CPU (${rounds[0]!.auctions.toLocaleString('en')} auctions)`,
      figure: median(rounds.map((r) => r.publishCpu)),
      unit: 'ms CPU',
      ratio: median(share),
      baseline: "the whole generation's CPU (crawl, decode, SQLite, publish)",
      notes: `rounds: publish ${rounds.map((r) => Math.round(r.publishCpu)).join(', ')} ms of ${rounds.map((r) => Math.round(r.generationCpu)).join(', ')} ms; after the generation (the feeds' baseline index, in slices) ${rounds.map((r) => Math.round(r.afterCpu)).join(', ')} ms; load ${loadavg().map((l) => l.toFixed(1)).join(' / ')}`,
    },
  ];
}

if (process.argv.includes('--round')) {
  console.log(JSON.stringify(await round(process.argv[process.argv.indexOf('--round') + 1]!)));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
