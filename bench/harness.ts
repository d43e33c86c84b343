/** Helpers for HTTP benchmarks: servers run in child processes, load comes from autocannon here. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface ServerProcess {
  url: string;
  /** the lines the server printed before its URL */
  printed: string[];
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `bench/servers/<script>.ts` in its own process and waits for the URL it prints. */
export function startServer(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  return spawnServer(join(import.meta.dirname, 'servers', `${script}.ts`), args, { env, name: script, timeoutMs: 30_000 });
}

/**
 * Runs `node --import tsx <scriptPath> ...args` (in `cwd`, e.g. a baseline checkout) and waits for
 * the first line of its stdout that is a URL.
 */
export async function spawnServer(scriptPath: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; name: string; timeoutMs: number }): Promise<ServerProcess> {
  const { name } = options;
  // BENCH_SERVER_NODE_ARGS: extra node flags for the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (not allowed in NODE_OPTIONS).
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', scriptPath, ...args], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffered = '';
  let printed: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), options.timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      const at = lines.findIndex((l) => l.startsWith('http'));
      const line = lines[at];
      if (line) {
        printed = lines.slice(0, at);
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return {
    url,
    printed,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export async function load(url: string, options: { seconds: number; connections: number }): Promise<LoadResult> {
  const result = await autocannon({ url, connections: options.connections, duration: options.seconds, pipelining: 1 });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/**
 * Alternates short rounds between targets so both see the same machine conditions,
 * then reports each target's median round.
 */
export async function compare(
  targets: Array<{ name: string; url: string }>,
  options: { rounds: number; seconds: number; connections: number },
): Promise<Map<string, LoadResult>> {
  const rounds = new Map<string, LoadResult[]>(targets.map((t) => [t.name, []]));
  for (const target of targets) await load(target.url, { seconds: 1, connections: options.connections }); // warm-up
  for (let i = 0; i < options.rounds; i++) {
    for (const target of targets) rounds.get(target.name)!.push(await load(target.url, options));
  }
  return new Map(
    [...rounds].map(([name, results]) => {
      const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
      return [name, sorted[Math.floor(sorted.length / 2)]!];
    }),
  );
}
