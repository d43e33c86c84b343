/**
 * The service's own heap limit. V8 sizes the heap from the machine's memory, and with the
 * default limit of a large host (≥ 2 GB of heap, e.g. 4 GB on a 24 GB machine) it lets the old
 * generation grow to up to 4× the live data before a full collection: a 60,000-auction service
 * with ~170 MB live reached 570–650 MB resident under the load test. Below a 2 GB limit V8 grows
 * the heap by 1.3–2× (scaled with the limit) and keeps it within halfway to the limit, so a
 * bounded limit bounds the slack. A process cannot change its own limit once started (V8's
 * flags are frozen), so `serve` runs the service in a worker thread with `resourceLimits`
 * (docs/deployment.md, Memory).
 */
import { getHeapStatistics } from 'node:v8';

/** Default old-generation limit of the service's worker, MB (see docs/deployment.md, Memory, for the figures). */
export const DEFAULT_HEAP_MB = 512;
/**
 * The worker's young generation, MB: 8 MB semi-spaces instead of V8's 16 MB. Under the load test
 * this took 60–80 MB off the peak RSS (353 and 384 vs 436 MB) at the same req/s and CPU per request.
 */
export const YOUNG_GENERATION_MB = 24;

export type HeapPlan = { kind: 'worker'; maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } | { kind: 'in-process'; why: string };

/**
 * Where `serve` runs: in a worker with a bounded heap, unless the operator set node's own heap
 * flags (they win), set SKYMARKET_HEAP_MB=0 (`heapMb`, from the config), or the code runs through
 * tsx (development: the worker would need the TypeScript loader again).
 */
export function heapPlan(heapMb: number | undefined, execArgv: readonly string[], nodeOptions: string | undefined, compiled: boolean): HeapPlan {
  const nodeFlags = `${execArgv.join(' ')} ${nodeOptions ?? ''}`;
  if (/--max[-_]old[-_]space[-_]size|--max[-_]heap[-_]size/.test(nodeFlags)) return { kind: 'in-process', why: 'heap size set by node flags' };
  if (heapMb === 0) return { kind: 'in-process', why: 'SKYMARKET_HEAP_MB=0' };
  if (!compiled) return { kind: 'in-process', why: 'running through tsx (development)' };
  // On a small host V8's own limit is already lower (and its growth factor with it): keep it.
  const v8DefaultMb = Math.floor(getHeapStatistics().heap_size_limit / 1048576);
  return { kind: 'worker', maxOldGenerationSizeMb: heapMb ?? Math.min(DEFAULT_HEAP_MB, v8DefaultMb), maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
}

/**
 * The C allocator setting `npm start` and the documented service units run the service with
 * (docs/deployment.md, Memory). glibc's malloc raises its mmap and trim thresholds each time a
 * large mapped block is freed (up to 32 MB), so after the first large buffers come and go, blocks
 * of that size are carved from the thread's arena and the arena keeps megabytes of freed pages.
 * Fixing the threshold at 128 KB (which fixes the trim threshold there too) gives them back:
 * ingesting alone, 60,000 auctions, 375–389 MB peak RSS against 401–406 MB without. The cost is
 * page faults when that memory is used again: ~0.1–0.4 ms more CPU per compression of a 222 KB
 * answer (docs/performance.md, 2026-11-26). glibc reads GLIBC_TUNABLES only when the process
 * starts, so a process cannot set it for itself; other C libraries ignore it.
 */
export const ALLOCATOR_TUNABLES = 'glibc.malloc.mmap_threshold=131072';

export type AllocatorSetting =
  | { kind: 'not glibc' }
  /** GLIBC_TUNABLES fixes the mmap threshold (ours or the operator's) */
  | { kind: 'fixed threshold'; tunables: string }
  /** glibc with its moving threshold: the operator started the service without `npm start`'s setting */
  | { kind: 'glibc default'; tunables: string | undefined };

/** What the C allocator runs with, from the environment and the C library the process reports (process.report's glibcVersionRuntime). */
export function allocatorSetting(tunables: string | undefined, glibcVersion: string | undefined): AllocatorSetting {
  if (glibcVersion === undefined) return { kind: 'not glibc' };
  if (tunables !== undefined && /(^|:)glibc\.malloc\.mmap_threshold=\d+/.test(tunables)) return { kind: 'fixed threshold', tunables };
  return { kind: 'glibc default', tunables };
}

/** The glibc version this process runs on, undefined on another C library or platform. */
export function glibcVersion(): string | undefined {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime;
}
