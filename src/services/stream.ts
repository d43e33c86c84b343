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
 *
 * Nothing is lost silently (docs/streaming.md, gaps): a resume the ring cannot serve exactly (an id
 * older than what it holds, an id from the future) is answered with a gap; a batch that could not
 * be added to the shared stream (Redis away) is counted and the next entry says so (`lost`), as does
 * a reader that finds the stream restarted without the entries after its cursor; a batch that
 * follows lost events carries the mark, and every connection gets a gap before it. While Redis is
 * unreachable, and for LOSS_WARNING_MS after events were lost, `warnings()` says so (health).
 */
import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { Outage } from '../metrics.ts';
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
    /** events were lost just before this batch: the id of the last event before them (null: none held) */
    readonly lostAfter: string | null | undefined = undefined,
  ) {}

  /** Events were lost between the batch before and this one. */
  get followsLoss(): boolean {
    return this.lostAfter !== undefined;
  }

  /** The batch holds an account's own events (`alert`): never written whole to every connection. */
  get personal(): boolean {
    this.hasPersonal ??= this.events.some((e) => e.key.account !== undefined && e.key.account !== null);
    return this.hasPersonal;
  }
  private hasPersonal: boolean | undefined;

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
  /** where `publishOnce`'s claims live in Redis (the deployment's prefix and a name) */
  claimPrefix?: string;
  /** the shared stream (REDIS_URL): built with the hub's error callback (store/event-log.ts) */
  log?: ((onError: (err: Error) => void) => SharedEventLog) | undefined;
  /** where Redis failures are counted (metrics.ts Outage) */
  registry?: Registry;
}

/** The shared stream as the hub uses it (store/event-log.ts RedisEventLog). */
export interface SharedEventLog {
  connect(): Promise<void>;
  range(start: string): Promise<Array<[string, string[]]>>;
  before(id: string): Promise<[string, string[]] | undefined>;
  read(cursor: string, blockMs: number): Promise<Array<[string, string[]]>>;
  state(): Promise<{ lastId: string; maxDeletedId: string } | null>;
  newestId(): Promise<string | null>;
  append(fields: string[]): Promise<string>;
  appendClaimed(claims: readonly string[], events: readonly string[], claimSeconds: number, extra?: readonly string[]): Promise<string | null>;
  close(): void;
}

/**
 * How long a claim of `publishOnce` holds: longer than replicas following the same spine can be
 * apart (a replica that falls further behind resynchronises and derives no event for what it missed).
 */
export const CLAIM_SECONDS = 3_600;

/** How long health warns after events were lost. */
export const LOSS_WARNING_MS = 10 * 60_000;

/** Why a resume cannot be served exactly. */
export type GapReason = 'older' | 'future';

/** What a resume finds: the events after the id, or that the id cannot be served (and why). */
export type Resume = { batches: RingBatch[]; gap: false } | { gap: true; reason: GapReason; oldest: string | null };

export class StreamHub {
  private readonly ring: RingBatch[] = [];
  private ringEvents = 0;
  private lastMs = 0;
  private lastSeq = -1;
  /** the newest event no longer held (trimmed, or before this process read the stream) */
  private horizon: EventId | undefined;
  readonly batches = new EventEmitter<{ batch: [RingBatch] }>();
  private readonly log: SharedEventLog | undefined;
  private started = false;
  private reading: Promise<void> | undefined;
  private closed = false;
  /** Redis outages: logged once each way, failures counted */
  private readonly outage: Outage | undefined;
  /** batches that could not be added to the shared stream since the last one that was */
  private unpublished = 0;
  /** the next accepted entry follows lost events (the stream restarted without entries this reader had not read) */
  private lostBeforeNext = false;
  /** when events were last known lost (ms, this process's clock) */
  private lostAt: number | undefined;

  constructor(private readonly options: StreamHubOptions) {
    this.batches.setMaxListeners(0);
    if (options.log) {
      this.outage = new Outage(options.registry ?? new Registry(), { dependency: 'redis', user: 'live feeds' }, options.logger);
      this.log = options.log((err) => this.outage!.failed(err));
    } else {
      // One process: its events start with it, and ids from before (a previous run) cannot be served.
      this.horizon = { ms: options.clock.now(), seq: -1, index: 0 };
    }
  }

  get shared(): boolean {
    return this.log !== undefined;
  }

  /**
   * Starts reading the shared stream (with Redis; a no-op without): the retention window
   * first, then every new entry.
   */
  async start(): Promise<void> {
    const log = this.log;
    if (!log || this.started) return;
    this.started = true;
    await log.connect();
    const since = Math.max(0, this.options.clock.now() - this.options.retentionMs);
    const first = await log.range(`${since}-0`);
    const before = await log.before(`${since}-0`);
    if (before) {
      const [ms, seq] = before[0].split('-').map(Number) as [number, number];
      this.horizon = { ms, seq, index: Math.max(0, this.entryEvents(before[1]).length - 1) };
    }
    // Kept for what is left of their retention: their age by the stream's (wall-clock) ids.
    for (const [id, fields] of first) this.acceptEntry(id, fields, Date.now() - Number(id.split('-')[0]));
    let cursor = first.length > 0 ? first[first.length - 1]![0] : before ? before[0] : '0-0';
    this.reading = (async () => {
      while (!this.closed) {
        try {
          const entries = await log.read(cursor, 5000);
          if (this.outage?.since !== undefined) {
            // Back after an outage: a stream that restarted without its data (or was trimmed past
            // the cursor meanwhile) held entries this process never read.
            const state = await log.state();
            if (state === null || compareStreamIds(state.lastId, cursor) < 0 || compareStreamIds(state.maxDeletedId, cursor) > 0) this.markLost();
            this.outage.ok();
          }
          for (const [id, fields] of entries) {
            cursor = id;
            this.acceptEntry(id, fields);
          }
        } catch (err) {
          if (this.closed) break;
          this.outage?.failed(err);
          await new Promise((r) => setTimeout(r, 1000).unref());
        }
      }
    })();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.log?.close();
    await this.reading?.catch(() => undefined);
    this.batches.removeAllListeners();
  }

  /**
   * Publishes one batch of the market's events: numbered here (one process), or added to the
   * shared stream (Redis), from which every process reads it. A batch that cannot be added is
   * lost: counted, and the next entry that is added says so (`lost`), so every reader marks the hole.
   */
  async publish(events: readonly DraftEvent[]): Promise<void> {
    if (events.length === 0) return;
    const log = this.log;
    if (!log) {
      let ms = this.options.clock.now();
      let seq = 0;
      if (ms <= this.lastMs) {
        ms = this.lastMs;
        seq = this.lastSeq + 1;
      }
      this.accept(ms, seq, events);
      return;
    }
    const lost = this.unpublished;
    const fields = ['events', JSON.stringify(events)];
    if (lost > 0) fields.push('lost', String(lost));
    try {
      await log.append(fields);
      this.unpublished -= lost;
      this.outage?.ok();
    } catch (err) {
      this.appendFailed(err);
    }
  }

  /**
   * Publishes the events not published before under their claim (`claimOf`, e.g. the listing's
   * uuid): in one process, all of them (it is the only publisher); over Redis, each claim is
   * taken once across the processes sharing the stream (store/event-log.ts `appendClaimed`), so
   * api replicas that each derive the same event add it once. Losses as `publish`.
   */
  async publishOnce(events: readonly DraftEvent[], claimOf: (event: DraftEvent) => string): Promise<void> {
    if (events.length === 0) return;
    const log = this.log;
    if (!log) return this.publish(events);
    const lost = this.unpublished;
    try {
      const id = await log.appendClaimed(
        events.map((e) => `${this.options.claimPrefix ?? ''}${claimOf(e)}`),
        events.map((e) => JSON.stringify(e)),
        CLAIM_SECONDS,
        lost > 0 ? ['lost', String(lost)] : [],
      );
      // Nothing claimed: another process added these events, and the mark of earlier losses waits for the next entry.
      if (id !== null) this.unpublished -= lost;
      this.outage?.ok();
    } catch (err) {
      this.appendFailed(err);
    }
  }

  /** An append that did not reach the log: counted for the next entry's `lost` mark, the outage noted, rethrown. */
  private appendFailed(err: unknown): never {
    this.unpublished++;
    this.lostAt = this.options.clock.now();
    this.outage?.failed(err);
    throw err;
  }

  private acceptEntry(id: string, fields: string[], age = 0): void {
    const [msText, seqText] = id.split('-');
    const events = this.entryEvents(fields);
    const lost = fields.indexOf('lost');
    if (lost >= 0 && lost % 2 === 0) this.markLost();
    if (events.length === 0) {
      this.options.logger.warn({ id }, 'stream: empty or unreadable entry skipped');
      return;
    }
    this.accept(Number(msText), Number(seqText), events, age);
  }

  /** Events were lost before the next entry: it carries the mark, health warns for a while. */
  private markLost(): void {
    if (!this.lostBeforeNext) this.options.logger.warn({ after: this.lastId() }, 'stream: events were lost (Redis was unreachable or restarted without them); clients get a gap event');
    this.lostBeforeNext = true;
    this.lostAt = this.options.clock.now();
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
    const lostAfter = this.lostBeforeNext ? this.lastId() : undefined;
    this.lostBeforeNext = false;
    const batch = new RingBatch(ms, seq, events, this.options.clock.now() - Math.max(0, age), lostAfter);
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
   * The batches holding events after `after` (the caller filters inside the first; a batch that
   * follows lost events says so), or a gap when the ring cannot serve `after`: it is older than the
   * oldest event held (and is not the newest one dropped), or newer than the newest (`future`:
   * settled by `isFuture` first where the hub shares a stream).
   */
  resume(after: EventId, future = false): Resume {
    this.trim();
    const oldest = this.ring[0]?.events[0];
    const newest = this.ring[this.ring.length - 1]?.last;
    const oldestText = oldest?.idText ?? null;
    if (future) return { gap: true, reason: 'future', oldest: oldestText };
    const isHorizon = this.horizon !== undefined && compareEventIds(after, this.horizon) === 0;
    // Events before what the ring holds were dropped (or came before this process read the stream,
    // or before it started): a resume from before them missed some.
    if (!isHorizon && (oldest ? compareEventIds(after, oldest.id) < 0 : this.horizon !== undefined && compareEventIds(after, this.horizon) < 0)) {
      return { gap: true, reason: 'older', oldest: oldestText };
    }
    // An id after every event this process numbered (one process) or read (shared, settled by isFuture).
    if (!this.shared && (newest ? compareEventIds(after, newest.id) > 0 : !isHorizon)) return { gap: true, reason: 'future', oldest: oldestText };
    const out: RingBatch[] = [];
    for (let i = this.ring.length - 1; i >= 0; i--) {
      const batch = this.ring[i]!;
      const last = batch.last;
      if (!last || compareEventIds(last.id, after) <= 0) break;
      out.push(batch);
    }
    return { batches: out.reverse(), gap: false };
  }

  /**
   * Whether `after` is an id no event has had yet. One process: newer than its newest event. Shared:
   * newer than the stream's newest entry (this process may not have read the newest yet); when Redis
   * cannot say, an id newer than what this process holds cannot be served either.
   */
  async isFuture(after: EventId): Promise<boolean> {
    const newest = this.ring[this.ring.length - 1]?.last?.id ?? this.horizon;
    if (newest && compareEventIds(after, newest) <= 0) return false;
    if (!this.log) return true;
    try {
      const id = await this.log.newestId();
      if (id === null) return true;
      const [ms, seq] = id.split('-').map(Number) as [number, number];
      // The entry's events are numbered from 0; any index within the newest entry is a real id.
      return compareEventIds(after, { ms, seq, index: Number.MAX_SAFE_INTEGER }) > 0;
    } catch {
      return true;
    }
  }

  /** What health says while the feeds are degraded: Redis unreachable, or events lost lately. */
  warnings(now = this.options.clock.now()): string[] {
    const out: string[] = [];
    const since = this.outage?.since;
    if (since !== undefined) {
      out.push(`live feeds: Redis unreachable since ${new Date(since).toISOString()} (${this.outage!.error}): events are not delivered and those published meanwhile are lost; clients resuming across them get a gap event`);
    }
    if (this.lostAt !== undefined && now - this.lostAt < LOSS_WARNING_MS) {
      out.push(`live feeds: events were lost at ${new Date(this.lostAt).toISOString()} (Redis unreachable); clients resuming from before then get a gap event`);
    }
    return out;
  }
}

/** <0, 0, >0 as Redis stream id a is before, equal to, after b. */
function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
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
