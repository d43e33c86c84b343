/**
 * The per-IP rate limiter's cost: GET /api/version with the limits off (every client
 * exempt) vs limited in memory vs limited in Redis, side by side in one run. Each request
 * comes from a different client (X-Forwarded-For, TRUST_PROXY=true), so every request does
 * the limiter's full work (two windows + the blacklist check) and none is refused.
 */
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { startServer, type LoadResult, type ServerProcess } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

let clientCounter = 0;
/** 10.x.y.z, a new address for every request (16 M before it wraps). */
function nextClient(): string {
  const n = ++clientCounter & 0xffffff;
  return `10.${n >> 16}.${(n >> 8) & 0xff}.${n & 0xff}`;
}

async function loadManyClients(url: string, seconds: number, connections: number): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    pipelining: 1,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-forwarded-for': nextClient() } }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const modes = ['off', 'memory', 'redis'] as const;
  const servers = new Map<string, ServerProcess>();
  try {
    for (const mode of modes) servers.set(mode, await startServer('ratelimit', [mode]));
    const seconds = options.quick ? 2 : 5;
    const rounds = options.quick ? 1 : 3;
    const connections = 50;
    const results = new Map<string, LoadResult[]>(modes.map((m) => [m, []]));
    for (const mode of modes) await loadManyClients(`${servers.get(mode)!.url}/api/version`, 1, connections); // warm-up
    for (let i = 0; i < rounds; i++) {
      for (const mode of modes) results.get(mode)!.push(await loadManyClients(`${servers.get(mode)!.url}/api/version`, seconds, connections));
    }
    const median = (mode: string) => {
      const sorted = [...results.get(mode)!].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
      return sorted[Math.floor(sorted.length / 2)]!;
    };
    const off = median('off');
    const row = (mode: 'memory' | 'redis', label: string): BenchRow => {
      const r = median(mode);
      return {
        name: `GET /api/version, ${label}`,
        figure: r.requestsPerSecond,
        unit: 'req/s',
        ratio: r.requestsPerSecond / off.requestsPerSecond,
        baseline: 'limits off',
        notes: `p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`,
      };
    };
    return [
      {
        name: 'GET /api/version, rate limits off (all clients exempt)',
        figure: off.requestsPerSecond,
        unit: 'req/s',
        notes: `p50 ${off.p50} ms, p99 ${off.p99} ms, ${connections} connections, a new client IP per request`,
      },
      row('memory', 'limited (memory: 30/10s + 100/60s)'),
      row('redis', 'limited (Redis: 30/10s + 100/60s)'),
    ];
  } finally {
    for (const server of servers.values()) await server.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
