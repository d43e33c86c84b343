/**
 * The one registry of prepared answers (docs/architecture.md, "Prepared answers"). A route that
 * answers the same bytes many times (a lowest-BIN page, a bazaar product's snapshot, a bulk price
 * file, a flip feed, the item list) declares a kind of answer here:
 *
 * - its key (the route's parameter, '' for a route without one);
 * - how to build it: the service's data for that key, serialised here (JSON by default), the
 *   market and the services never hand out bytes;
 * - what invalidates it: `generation(key)`, the state of the views it was built from. Each view
 *   follows the spine and moves its generation when it applies a change that concerns it (the
 *   active listings on an `auctions`/`auctions_ended` change, the bazaar feed on a `bazaar` change,
 *   the flip engine on each computation); an answer built at another generation is stale. Time
 *   itself (a listing ending, a history window moving) is the build's `validUntil`.
 *
 * The stored-response fast path (http/stored-responses.ts) and the route's handler both read it:
 * `current(key)` synchronously, `get(key)` building when nothing current is kept. Each answer keeps
 * its plain bytes and, made once on first use, its gzip and brotli variants: the compression hook
 * (http/compression.ts) and the fast path send the same remembered bytes (the ETag is the caching
 * plugin's hash of the bytes sent).
 */
import { compress, compressSync, type Encoding } from './codecs.ts';

/** One prepared answer: the plain bytes, their compressed variants (made once, then kept) and its headers. */
export class PreparedAnswer {
  private gzipped: Buffer | undefined;
  private brotli: Buffer | undefined;

  constructor(
    readonly plain: Buffer,
    options: {
      /** default: the route's */
      contentType?: string | undefined;
      /** a `Last-Modified` value (HTTP date), sent after the content type as the handler sends it */
      lastModified?: string | undefined;
      /** further headers (lower-case names, e.g. the flip feeds' `x-computed-at`), sent after Last-Modified */
      headers?: Readonly<Record<string, string>> | undefined;
      /** a gzip variant made with the bytes (a bulk file's `.gz` is sent as it is elsewhere) */
      gzip?: Buffer | undefined;
    } = {},
  ) {
    this.contentType = options.contentType;
    this.lastModified = options.lastModified;
    this.headers = options.headers;
    this.gzipped = options.gzip;
    answers.set(plain, this);
  }

  readonly contentType: string | undefined;
  readonly lastModified: string | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  /** The variant already made, if any. */
  known(encoding: Encoding): Buffer | undefined {
    return encoding === 'br' ? this.brotli : this.gzipped;
  }

  /** The variant, compressed now (synchronously) on first use, then kept. */
  variant(encoding: Encoding): Buffer {
    return this.known(encoding) ?? this.keep(encoding, compressSync(this.plain, encoding));
  }

  /** The variant, compressed on the thread pool on first use (the normal path), then kept: the first made wins, so both paths agree. */
  variantAsync(encoding: Encoding, done: (err: Error | null, out: Buffer) => void): void {
    const known = this.known(encoding);
    if (known) return done(null, known);
    compress(this.plain, encoding, (err, out) => (err ? done(err, out) : done(null, this.known(encoding) ?? this.keep(encoding, out))));
  }

  private keep(encoding: Encoding, out: Buffer): Buffer {
    if (encoding === 'br') this.brotli = out;
    else this.gzipped = out;
    return out;
  }
}

/** The prepared answer whose plain bytes these are (the compression hook finds a handler's prepared body by its Buffer). */
const answers = new WeakMap<Buffer, PreparedAnswer>();
export function preparedAnswerOf(body: Buffer): PreparedAnswer | undefined {
  return answers.get(body);
}

/** What a build produces for one key: the data (serialised by the kind), or a miss. */
export interface Built<V> {
  value: V;
  /** the answer holds until then (epoch ms): a listing on it ends, a window moves on */
  validUntil?: number;
  lastModified?: string;
  headers?: Readonly<Record<string, string>>;
  contentType?: string;
  /** false: send this answer but keep nothing (it reflects data the views have not seen yet) */
  keep?: boolean;
  /** the generation the answer reflects, when the build knows it exactly (the data object it serialised); default: the one read before the build */
  generation?: unknown;
}

export interface AnswerKind<V, C = undefined> {
  /** for logs and tests */
  name: string;
  /**
   * The generation of the views this key's answer is built from (compared by identity): an
   * answer kept at another generation is stale. Read before the build, so a change applied during
   * it leaves the kept answer stale rather than current.
   */
  generation(key: string): unknown;
  /** Whether a kept answer may be served from memory now (e.g. the views are loaded and know the key); default: yes. */
  servable?(key: string, now: number): boolean;
  /** The data for the key; undefined for a miss (the route answers its problem). `context`: what the handler passes (a serialiser). */
  build(key: string, context: C): Built<V> | undefined | Promise<Built<V> | undefined>;
  /** default JSON.stringify */
  serialize?(value: V, context: C): string | Buffer;
  /** answers kept; past it they start over (default 20,000) */
  maxEntries?: number;
}

interface Kept {
  generation: unknown;
  validUntil: number;
  answer: PreparedAnswer;
}

/** The answers of one kind, by key. */
export class PreparedAnswers<V, C = undefined> {
  private readonly kept = new Map<string, Kept>();
  private readonly building = new Map<string, { generation: unknown; promise: Promise<PreparedAnswer | undefined> }>();
  /** answers built (tests and benchmarks count them) */
  builds = 0;

  constructor(
    readonly kind: AnswerKind<V, C>,
    /** the clock's now (validUntil) */
    private readonly now: () => number,
  ) {}

  /** The key's answer while it is current, else undefined. Synchronous: the hot paths call it on every request. */
  current(key: string): PreparedAnswer | undefined {
    const kept = this.kept.get(key);
    if (kept === undefined) return undefined;
    const now = this.now();
    if (now >= kept.validUntil || kept.generation !== this.kind.generation(key)) return undefined;
    if (this.kind.servable && !this.kind.servable(key, now)) return undefined;
    return kept.answer;
  }

  /** The key's answer: the kept one while current, else built (one build per key and generation at a time); undefined for a miss. */
  get(key: string, context: C): Promise<PreparedAnswer | undefined> {
    const current = this.current(key);
    if (current) return Promise.resolve(current);
    const generation = this.kind.generation(key);
    const pending = this.building.get(key);
    if (pending && pending.generation === generation) return pending.promise;
    const promise = this.build(key, generation, context).finally(() => {
      if (this.building.get(key)?.promise === promise) this.building.delete(key);
    });
    this.building.set(key, { generation, promise });
    return promise;
  }

  /** Drops every kept answer (a resynchronised view, a closed app). */
  clear(): void {
    this.kept.clear();
  }

  get size(): number {
    return this.kept.size;
  }

  /** The key's answer now, for a kind whose build is synchronous (no I/O): the kept one while current, else built. */
  prepare(key: string, context: C): PreparedAnswer {
    const current = this.current(key);
    if (current) return current;
    const generation = this.kind.generation(key);
    const built = this.kind.build(key, context);
    if (built === undefined || built instanceof Promise) throw new Error(`prepared answers: ${this.kind.name} has no synchronous answer for ${key}`);
    return this.keep(key, generation, built, context);
  }

  private async build(key: string, generation: unknown, context: C): Promise<PreparedAnswer | undefined> {
    const built = await this.kind.build(key, context);
    return built === undefined ? undefined : this.keep(key, generation, built, context);
  }

  private keep(key: string, generation: unknown, built: Built<V>, context: C): PreparedAnswer {
    this.builds++;
    const serialized = this.kind.serialize ? this.kind.serialize(built.value, context) : JSON.stringify(built.value);
    const answer = new PreparedAnswer(typeof serialized === 'string' ? Buffer.from(serialized) : serialized, {
      contentType: built.contentType,
      lastModified: built.lastModified,
      headers: built.headers,
    });
    if (built.keep !== false) {
      if (this.kept.size >= (this.kind.maxEntries ?? 20_000)) this.kept.clear();
      this.kept.set(key, { generation: 'generation' in built ? built.generation : generation, validUntil: built.validUntil ?? Number.POSITIVE_INFINITY, answer });
    }
    return answer;
  }
}

/** Every kind of prepared answer of an app (`app.prepared`): the routes define theirs, the app clears them when it closes. */
export class PreparedRegistry {
  private readonly kinds = new Map<string, PreparedAnswers<any, any>>();

  /** `clock`: the app's (an answer's validUntil is read against it) */
  constructor(private readonly clock: { now(): number }) {}

  /** Declares a kind of answer (one per route and parameter shape; the name is unique). */
  define<V, C = undefined>(kind: AnswerKind<V, C>): PreparedAnswers<V, C> {
    if (this.kinds.has(kind.name)) throw new Error(`prepared answers: ${kind.name} is defined twice`);
    const answers = new PreparedAnswers(kind, () => this.clock.now());
    this.kinds.set(kind.name, answers);
    return answers;
  }

  /** The kind of this name (tests and benchmarks). */
  get(name: string): PreparedAnswers<unknown, unknown> | undefined {
    return this.kinds.get(name);
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }

  clear(): void {
    for (const kind of this.kinds.values()) kind.clear();
  }
}
