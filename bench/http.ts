/**
 * A trivial JSON route of the app (GET /api/version) vs a bare node:http server
 * returning the same bytes, side by side in one run.
 */
import { pathToFileURL } from 'node:url';
import { compare, startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const app = await startServer('app');
  let bare: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const bytes = await (await fetch(`${app.url}/api/version`)).text();
    bare = await startServer('bare', [bytes]);
    const sameBytes = (await (await fetch(bare.url)).text()) === bytes;
    if (!sameBytes) throw new Error('baseline does not return the same bytes');
    const results = await compare(
      [
        { name: 'skymarket', url: `${app.url}/api/version` },
        { name: 'node:http', url: bare.url },
      ],
      { rounds: options.quick ? 1 : 3, seconds: options.quick ? 2 : 5, connections: 50 },
    );
    const ours = results.get('skymarket')!;
    const base = results.get('node:http')!;
    return [
      {
        name: 'GET /api/version, bare node:http (same bytes)',
        figure: base.requestsPerSecond,
        unit: 'req/s',
        notes: `p50 ${base.p50} ms, p99 ${base.p99} ms, 50 connections`,
      },
      {
        name: 'GET /api/version, skymarket',
        figure: ours.requestsPerSecond,
        unit: 'req/s',
        ratio: ours.requestsPerSecond / base.requestsPerSecond,
        baseline: 'bare node:http',
        notes: `p50 ${ours.p50} ms, p99 ${ours.p99} ms, non-2xx ${ours.non2xx}, errors ${ours.errors}`,
      },
    ];
  } finally {
    await bare?.stop();
    await app.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
