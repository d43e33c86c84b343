/**
 * The live feeds' hub (docs/streaming.md): numbers the market's event batches, keeps them in a
 * retention ring for resumes (`Last-Event-ID`), and hands every new batch to the connections of
 * this process (stream/ writes them out).
 *
 * - Without Redis (one process): a published batch is numbered here and goes straight into the ring.
 * - With Redis (REDIS_URL): the ingesting process `XADD`s each batch to one Redis stream (bounded
 *   by `MAXLEN ~`), and every process reads the stream (`XREAD BLOCK`) into its ring, so every
 *   process numbers every event alike (the stream entry's id plus the event's place in it) and a
 *   client resumes on any of them. A process that starts reads back the retention window first.
 *
 * Events are kept serialised once (their JSON and their SSE frame); the key fields a subscription
 * checks (topic, tag, price) beside them; the parsed event only when a variant filter asks for it.
 */
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { CompiledFilter } from '../domain/filters.ts';
import {
  compareEventIds,
  formatEventId,
  keyOf,
  matchesKey,
  subjectOf,
  type DraftEvent,
  type EventId,
  type EventKey,
  type StreamEvent,
  type Subscription,
} from '../domain/stream-events.ts';

/** One numbered event as the ring holds it. */
export class RingEvent {
  private parsed: StreamEvent | undefined;
  constructor(
    readonly id: EventId,
    readonly idText: string,
    readonly key: EventKey,
    /** the event's JSON (id first) */
    readonly json: string,
  ) {}

  get sse(): string {
    return `id: ${this.idText}\ndata: ${this.json}\n\n`;
  }

  event(): StreamEvent {
    this.parsed ??= JSON.parse(this.json) as StreamEvent;
    return this.parsed;
  }

  matches(s: Subscription): boolean {
    const verdict = matchesKey(s, this.key);
    if (verdict !== 'needs-item') return verdict === 'yes';
    const subject = subjectOf(this.event());
    return subject !== null && s.filter!(subject);
  }
}

/** The events of one batch (one generation, sales batch or bazaar snapshot), in order. */
export class RingBatch {
  private allSse: Buffer | undefined;
  constructor(
    readonly ms: number,
    readonly seq: number,
    readonly events: readonly RingEvent[],
    /** when this process received it (ms) */
    readonly receivedAt: number,
  ) {}

  /** Every event's SSE frame, joined once for the connections that want everything. */
  sseAll(): Buffer {
    this.allSse ??= Buffer.from(this.events.map((e) => e.sse).join(''));
    return this.allSse;
  }

  /** The SSE frames of the events `s` wants after `after` (an empty string: none). */
  sseFor(s: Subscription, after?: EventId): string {
    let out = '';
    for (const e of this.events) if ((!after || compareEventIds(e.id, after) > 0) && e.matches(s)) out += e.sse;
    return out;
  }

  get last(): RingEvent | undefined {
    return this.events[this.events.length - 1];
  }
}

export interface StreamHubOptions {
  clock: Clock;
  logger: Logger;
  /** how long batches stay in the ring (ms) */
  retentionMs: number;
  /** events the ring holds at most (the oldest batches go first) */
  maxEvents?: number;
  /** the shared stream: REDIS_URL, the key prefix and the stream's approximate MAXLEN (batches) */
  redis?: { url: string; prefix: string; maxLen: number } | undefined;
}

/** What a resume finds: the events after the id, or that the id is older than the ring. */
export type Resume = { batches: RingBatch[]; gap: false } | { gap: true; oldest: string | null };

export class StreamHub {
  private readonly ring: RingBatch[] = [];
  private ringEvents = 0;
  private lastMs = 0;
  private lastSeq = -1;
  /** the newest event no longer held (trimmed, or before this process read the stream) */
  private horizon: EventId | undefined;
  readonly batches = new EventEmitter<{ batch: [RingBatch] }>();
  private publisher: Promise<Redis> | undefined;
  private reader: Redis | undefined;
  private reading: Promise<void> | undefined;
  private closed = false;
  private readonly key: string;

  constructor(private readonly options: StreamHubOptions) {
    this.batches.setMaxListeners(0);
    this.key = `${options.redis?.prefix ?? ''}stream:events`;
  }

  get shared(): boolean {
    return this.options.redis !== undefined;
  }

  /**
   * Starts reading the shared stream (with Redis; a no-op without): the retention window
   * first, then every new entry.
   */
  async start(): Promise<void> {
    const redis = this.options.redis;
    if (!redis || this.reader) return;
    this.reader = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: null });
    this.reader.on('error', (err) => this.options.logger.warn({ err: { message: err.message } }, 'stream: redis reader error'));
    await this.reader.connect();
    const since = Math.max(0, this.options.clock.now() - this.options.retentionMs);
    const first = await this.reader.xrange(this.key, `${since}-0`, '+');
    const older = await this.reader.xrevrange(this.key, `(${since}-0`, '-', 'COUNT', 1);
    const before = older[0];
    if (before) {
      const [ms, seq] = before[0].split('-').map(Number) as [number, number];
      this.horizon = { ms, seq, index: Math.max(0, this.entryEvents(before[1]).length - 1) };
    }
    // Kept for what is left of their retention: their age by the stream's (wall-clock) ids.
    for (const [id, fields] of first) this.acceptEntry(id, fields, Date.now() - Number(id.split('-')[0]));
    let cursor = first.length > 0 ? first[first.length - 1]![0] : older.length > 0 ? older[0]![0] : '0-0';
    this.reading = (async () => {
      while (!this.closed) {
        try {
          const answer = await this.reader!.xread('BLOCK', 5000, 'STREAMS', this.key, cursor);
          if (!answer) continue;
          for (const [, entries] of answer) {
            for (const [id, fields] of entries) {
              cursor = id;
              this.acceptEntry(id, fields);
            }
          }
        } catch (err) {
          if (this.closed) break;
          this.options.logger.warn({ err: { message: (err as Error).message } }, 'stream: XREAD failed; retrying');
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reader?.disconnect();
    await this.reading?.catch(() => undefined);
    (await this.publisher?.catch(() => undefined))?.disconnect();
    this.batches.removeAllListeners();
  }

  /**
   * Publishes one batch of the market's events: numbered here (one process), or added to the
   * shared stream (Redis), from which every process reads it.
   */
  async publish(events: readonly DraftEvent[]): Promise<void> {
    if (events.length === 0) return;
    const redis = this.options.redis;
    if (!redis) {
      let ms = this.options.clock.now();
      let seq = 0;
      if (ms <= this.lastMs) {
        ms = this.lastMs;
        seq = this.lastSeq + 1;
      }
      this.accept(ms, seq, events);
      return;
    }
    // Every publish waits for the one connection, so batches enter the stream in the order they were published.
    this.publisher ??= (async () => {
      const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
      client.on('error', (err) => this.options.logger.warn({ err: { message: err.message } }, 'stream: redis publisher error'));
      try {
        await client.connect();
      } catch (err) {
        // The next publish tries a new connection.
        this.publisher = undefined;
        client.disconnect();
        throw err;
      }
      return client;
    })();
    const publisher = await this.publisher;
    await publisher.xadd(this.key, 'MAXLEN', '~', redis.maxLen, '*', 'events', JSON.stringify(events));
  }

  private acceptEntry(id: string, fields: string[], age = 0): void {
    const [msText, seqText] = id.split('-');
    const events = this.entryEvents(fields);
    if (events.length === 0) {
      this.options.logger.warn({ id }, 'stream: empty or unreadable entry skipped');
      return;
    }
    this.accept(Number(msText), Number(seqText), events, age);
  }

  private entryEvents(fields: string[]): DraftEvent[] {
    const at = fields.indexOf('events');
    if (at < 0 || at % 2 !== 0) return [];
    try {
      const events = JSON.parse(fields[at + 1]!) as unknown;
      return Array.isArray(events) ? (events as DraftEvent[]) : [];
    } catch {
      return [];
    }
  }

  private accept(ms: number, seq: number, drafts: readonly DraftEvent[], age = 0): void {
    if (ms < this.lastMs || (ms === this.lastMs && seq <= this.lastSeq)) return;
    this.lastMs = ms;
    this.lastSeq = seq;
    const events = drafts.map((draft, index) => {
      const id = { ms, seq, index };
      const idText = formatEventId(id);
      return new RingEvent(id, idText, keyOf(draft), JSON.stringify({ id: idText, ...draft }));
    });
    const batch = new RingBatch(ms, seq, events, this.options.clock.now() - Math.max(0, age));
    this.ring.push(batch);
    this.ringEvents += events.length;
    this.trim();
    this.batches.emit('batch', batch);
  }

  private trim(): void {
    const oldest = this.options.clock.now() - this.options.retentionMs;
    const maxEvents = this.options.maxEvents ?? 1_000_000;
    // By when this process received a batch (its id's time is Redis's clock when shared).
    while (this.ring.length > 1 && (this.ring[0]!.receivedAt < oldest || this.ringEvents > maxEvents)) {
      const dropped = this.ring.shift()!;
      this.ringEvents -= dropped.events.length;
      this.horizon = dropped.last?.id ?? this.horizon;
    }
  }

  /** The newest event's id, or null before the first. */
  lastId(): string | null {
    return this.ring[this.ring.length - 1]?.last?.idText ?? null;
  }

  /** events held in the ring */
  get size(): number {
    return this.ringEvents;
  }

  /**
   * The batches holding events after `after` (the caller filters inside the first), or a gap
   * when `after` is older than what the ring holds.
   */
  resume(after: EventId): Resume {
    this.trim();
    // Events up to the horizon were dropped (or came before this process read the stream): a
    // resume from before it missed some.
    if (this.horizon && compareEventIds(after, this.horizon) < 0) return { gap: true, oldest: this.ring[0]?.events[0]?.idText ?? null };
    const out: RingBatch[] = [];
    for (let i = this.ring.length - 1; i >= 0; i--) {
      const batch = this.ring[i]!;
      const last = batch.last;
      if (!last || compareEventIds(last.id, after) <= 0) break;
      out.push(batch);
    }
    return { batches: out.reverse(), gap: false };
  }

}

/**
 * What the feed faces (stream/) ask: the hub's batches and resumes, a subscription's filters
 * compiled against what skymarket knows (Seller names), and tags resolved through the catalog's
 * aliases.
 */
export class StreamFeed {
  constructor(
    readonly hub: StreamHub,
    private readonly compile: (filters: Record<string, string>) => Promise<CompiledFilter>,
    private readonly aliases: (raw: string) => string | undefined,
  ) {}

  /** Compiles variant filters (throws FilterError for a bad one). */
  compileFilters(filters: Record<string, string>): Promise<CompiledFilter> {
    return this.compile(filters);
  }

  /** The canonical tag an alias (NEU id, name, any case) names, or undefined. */
  resolveTag(raw: string): string | undefined {
    return this.aliases(raw);
  }
}
