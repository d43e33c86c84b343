/**
 * A small pool of worker threads that parse, validate and decode auction records
 * (decode-worker.ts) during a cold sweep, beside the ingest thread, which keeps decoding
 * pages itself whenever no worker is free: 60,000 items cost ~3 s of CPU on one core.
 *
 * Loading the worker's modules through tsx costs ~2.5 s of CPU per worker (tsx's loader
 * hooks over TypeBox's ~700 files), more than a worker saves. So the worker's code is
 * bundled once per process into one script with tsx's own esbuild (asynchronously, while
 * the sweep goes on); a worker then starts in ~0.2 s of CPU. The pool is closed after every
 * generation (threads and heaps are not kept while idle); the bundle is kept.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DecodeReply, DecodeTask } from './decode-worker.ts';
import type { PreparedRecord } from './prepare-auction.ts';

/** Records of one page to decode: byte ranges inside `body`. */
export interface RecordRanges {
  body: Uint8Array;
  ranges: ArrayLike<{ from: number; to: number }>;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  pending: Map<number, { resolve: (records: PreparedRecord[]) => void; reject: (err: Error) => void }>;
}

/** Worker count for this machine: every core but the ingest thread's, at least 1, at most 3. */
export function defaultDecodeWorkers(): number {
  return Math.max(1, Math.min(3, availableParallelism() - 1));
}

/**
 * Pages a worker may have queued before the ingest thread decodes the next one itself: with
 * one, the ingest thread (which fetches pages faster than a worker decodes them) took ~3/4.
 */
const QUEUED_PER_WORKER = 2;

let bundle: Promise<string> | undefined;

/** How workers start: the compiled build (dist/) runs decode-worker.js itself; under tsx, the bundle below. */
type WorkerSource = { file: URL } | { code: string };

function workerSource(): Promise<WorkerSource> {
  if (import.meta.url.endsWith('.js')) return Promise.resolve({ file: new URL('./decode-worker.js', import.meta.url) });
  return workerBundle().then((code) => ({ code }));
}

/** decode-worker.ts and everything it imports as one CommonJS script, built once per process. */
function workerBundle(): Promise<string> {
  bundle ??= (async () => {
    // esbuild is tsx's own dependency (sources run through tsx; the compiled build does not get here).
    const esbuild = createRequire(import.meta.resolve('tsx'))('esbuild') as typeof import('esbuild');
    const built = await esbuild.build({
      entryPoints: [fileURLToPath(new URL('./decode-worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    });
    return built.outputFiles[0]!.text;
  })();
  bundle.catch(() => (bundle = undefined));
  return bundle;
}

export class DecodePool {
  private slots: Slot[] = [];
  private starting: Promise<void> | undefined;
  private nextId = 1;
  private generation = 0;

  constructor(
    readonly size: number = defaultDecodeWorkers(),
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`decode pool size must be a positive integer, got ${size}`);
  }

  /**
   * Hands the records to the least busy ready worker with room in its queue, starting the workers on first
   * use; undefined when none is free (the caller decodes them itself). The answer is in the
   * order of `ranges`.
   */
  tryDecode(input: RecordRanges): Promise<PreparedRecord[]> | undefined {
    this.start();
    if (input.ranges.length === 0) return undefined;
    let slot: Slot | undefined;
    for (const s of this.slots) if (s.ready && s.pending.size < QUEUED_PER_WORKER && (!slot || s.pending.size < slot.pending.size)) slot = s;
    if (!slot) return undefined;
    // One copy of the span that holds the records, transferred (not cloned) to the worker.
    // (Uint8Array's slice copies; Buffer's would share the page's memory and transferring it would detach the page.)
    let lo = Infinity;
    let hi = 0;
    for (let r = 0; r < input.ranges.length; r++) {
      lo = Math.min(lo, input.ranges[r]!.from);
      hi = Math.max(hi, input.ranges[r]!.to);
    }
    const bytes = Uint8Array.prototype.slice.call(input.body, lo, hi);
    const ranges = new Int32Array(input.ranges.length * 2);
    for (let r = 0; r < input.ranges.length; r++) {
      ranges[2 * r] = input.ranges[r]!.from - lo;
      ranges[2 * r + 1] = input.ranges[r]!.to - lo;
    }
    const id = this.nextId++;
    const target = slot;
    return new Promise<PreparedRecord[]>((resolve, reject) => {
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage({ id, bytes, ranges } satisfies DecodeTask, [bytes.buffer, ranges.buffer]);
    });
  }

  /** Stops every worker (pending work is rejected); the next tryDecode starts them again. */
  async close(): Promise<void> {
    this.generation++;
    this.starting = undefined;
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private start(): void {
    if (this.starting) return;
    const generation = this.generation;
    this.starting = workerSource().then(
      (source) => {
        if (generation !== this.generation) return;
        for (let i = 0; i < this.size; i++) this.spawn(source);
      },
      (err) => this.onError(err),
    );
  }

  private spawn(source: WorkerSource): void {
    const worker = 'file' in source ? new Worker(source.file, { execArgv: [] }) : new Worker(source.code, { eval: true, execArgv: [] });
    const slot: Slot = { worker, ready: false, pending: new Map() };
    const fail = (err: Error) => {
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
      this.slots = this.slots.filter((s) => s !== slot);
    };
    worker.on('message', (reply: DecodeReply | 'ready') => {
      if (reply === 'ready') {
        slot.ready = true;
        return;
      }
      const p = slot.pending.get(reply.id);
      if (!p) return;
      slot.pending.delete(reply.id);
      if ('error' in reply) p.reject(new Error(`decode worker failed: ${reply.error}`));
      else p.resolve(reply.records);
    });
    worker.on('error', (err) => {
      this.onError(err);
      fail(err);
    });
    worker.on('exit', (code) => fail(new Error(`decode worker exited with code ${code}`)));
    this.slots.push(slot);
  }
}
