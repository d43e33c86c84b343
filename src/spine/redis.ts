/**
 * The spine across processes, on Redis Streams: the writer `XADD`s each change (JSON) under the id
 * `<seq>-0`, numbered by one Lua script that also increments the sequence (so numbers and stream
 * order agree, whichever process writes), and trims the stream (`MAXLEN ~`). Each process reads it
 * with `XREAD BLOCK` from the last id it delivered, on a connection of its own, and hands every
 * change to its subscribers (the views' followers).
 *
 * Failures are holes, never silence: a change the writer cannot publish is followed, once Redis
 * answers again, by a `lost` change (every follower resynchronises); a reader that loses Redis
 * tells its subscribers `unavailable`, then `restored` when it reads again (they resynchronise:
 * they may have missed changes, or the stream may have restarted empty).
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { MarketChange, MarketChangeBody, HoleReason } from '../domain/market-change.ts';
import type { ChangeSink, ChangeSource, SpineEvent } from './index.ts';

export interface RedisSpineOptions {
  url: string;
  /** key prefix (REDIS_PREFIX): the stream is `<prefix>spine:changes`, its counter `<prefix>spine:seq` */
  prefix: string;
  /** approximate number of changes the stream keeps (older ones are trimmed) */
  maxLen: number;
  logger: Logger;
  /** how long one XREAD blocks (ms) */
  blockMs?: number;
}

/** INCR the counter (never below the stream's last id), XADD under `<seq>-0` with MAXLEN ~; returns seq. */
export const PUBLISH_SCRIPT = `
local s = redis.call('INCR', KEYS[1])
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if last[1] then
  local l = tonumber(string.match(last[1][1], '^(%d+)'))
  if l >= s then s = l + 1; redis.call('SET', KEYS[1], s) end
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], s .. '-0', 'c', ARGV[2])
return s`;

/** Changes kept in memory for a subscriber that starts just behind the reader. */
const RECENT = 64;

export class RedisSpine implements ChangeSource, ChangeSink {
  readonly streamKey: string;
  private readonly seqKey: string;
  private writer: Redis | undefined;
  private reader: Redis | undefined;
  private command: Redis | undefined;
  private readonly handlers = new Set<(event: SpineEvent) => void>();
  private readonly recent: MarketChange[] = [];
  /** the last seq read from the stream (the reader's cursor) */
  private cursor = -1;
  private reading: Promise<void> | undefined;
  private closed = false;
  /** changes the writer could not publish since its last success */
  private unpublished = 0;
  private publishing: Promise<unknown> = Promise.resolve();
  /** publishes that failed (a metric) */
  failedPublishes = 0;

  constructor(private readonly options: RedisSpineOptions) {
    this.streamKey = `${options.prefix}spine:changes`;
    this.seqKey = `${options.prefix}spine:seq`;
  }

  /** A connection that fails its commands at once while Redis is away (no offline queue, no retries). */
  private connection(): Redis {
    const redis = new Redis(this.options.url, {
      lazyConnect: false,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (times) => Math.min(100 * times, 2000),
    });
    // Errors are reported where a command fails; the connection's own events would repeat them.
    redis.on('error', () => undefined);
    return redis;
  }

  private async ready(redis: Redis): Promise<Redis> {
    if (redis.status === 'ready') return redis;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`redis not ready (${redis.status})`)), 2000);
      const done = (err?: Error) => {
        clearTimeout(timer);
        redis.off('ready', onReady);
        if (err) reject(err);
        else resolve();
      };
      const onReady = () => done();
      redis.on('ready', onReady);
    });
    return redis;
  }

  // -------------------------------------------------------------------------
  // Writing

  publish(body: MarketChangeBody): void {
    this.writer ??= this.connection();
    const writer = this.writer;
    const json = JSON.stringify(body);
    // One at a time, in order: a change is numbered after every change published before it.
    this.publishing = this.publishing.then(async () => {
      if (this.closed) return;
      try {
        await this.ready(writer);
        if (this.unpublished > 0) {
          const lost = this.unpublished;
          await writer.eval(PUBLISH_SCRIPT, 2, this.seqKey, this.streamKey, this.options.maxLen, JSON.stringify({ kind: 'lost', count: lost }));
          this.unpublished = 0;
          this.options.logger.warn({ lost }, 'spine: told the followers that changes were lost while redis was away');
        }
        await writer.eval(PUBLISH_SCRIPT, 2, this.seqKey, this.streamKey, this.options.maxLen, json);
      } catch (err) {
        this.unpublished++;
        this.failedPublishes++;
        if (this.unpublished === 1) this.options.logger.warn({ err: errorText(err), kind: body.kind }, 'spine: a change could not be published to redis; the followers resynchronise once it is back');
      }
    });
  }

  /** Resolves when every publish so far has been tried (tests, shutdown). */
  flushed(): Promise<void> {
    return this.publishing.then(() => undefined);
  }

  // -------------------------------------------------------------------------
  // Reading

  async head(): Promise<number> {
    this.command ??= this.connection();
    const redis = await this.ready(this.command);
    const last = await redis.xrevrange(this.streamKey, '+', '-', 'COUNT', 1);
    return last[0] ? seqOf(last[0][0]) : 0;
  }

  subscribe(fromSeq: number, handler: (event: SpineEvent) => void): () => void {
    this.handlers.add(handler);
    // Changes this process has read beyond fromSeq: handed over now, in order.
    for (const change of this.recent) if (change.seq > fromSeq) handler({ type: 'change', change });
    if (this.cursor < 0) this.cursor = fromSeq;
    this.reading ??= this.read();
    return () => this.handlers.delete(handler);
  }

  private emit(event: SpineEvent): void {
    for (const handler of [...this.handlers]) handler(event);
  }

  private async read(): Promise<void> {
    this.reader = this.connection();
    let away: string | undefined;
    let pause = 100;
    while (!this.closed) {
      try {
        const redis = await this.ready(this.reader);
        if (away !== undefined) {
          // Back: the stream may have restarted empty (its head below the cursor) or moved on without us.
          const head = await this.head();
          const reason: HoleReason = head < this.cursor ? 'restarted' : 'unavailable';
          this.options.logger.warn({ head, cursor: this.cursor, reason }, 'spine: change stream is back; followers resynchronise');
          this.cursor = head;
          this.recent.length = 0;
          away = undefined;
          pause = 100;
          this.emit({ type: 'restored', reason });
        }
        const res = await redis.xread('COUNT', 500, 'BLOCK', this.options.blockMs ?? 5000, 'STREAMS', this.streamKey, `${this.cursor}-0`);
        if (!res) continue;
        for (const [, entries] of res) {
          for (const [id, fields] of entries) {
            const seq = seqOf(id);
            this.cursor = seq;
            const change = decode(seq, fields);
            this.recent.push(change);
            if (this.recent.length > RECENT) this.recent.shift();
            this.emit({ type: 'change', change });
          }
        }
      } catch (err) {
        if (this.closed) break;
        if (away === undefined) {
          away = errorText(err);
          this.options.logger.warn({ err: away }, 'spine: cannot read the change stream from redis');
          this.emit({ type: 'unavailable', error: away });
        }
        await new Promise((r) => setTimeout(r, pause));
        pause = Math.min(pause * 2, 2000);
      }
    }
  }

  async close(): Promise<void> {
    await this.flushed();
    this.closed = true;
    for (const redis of [this.writer, this.reader, this.command]) redis?.disconnect();
    await this.reading?.catch(() => undefined);
  }
}

function seqOf(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

/** The stored change; one that cannot be parsed becomes a `lost` change (the followers reload). */
function decode(seq: number, fields: string[]): MarketChange {
  const i = fields.indexOf('c');
  try {
    const body = JSON.parse(fields[i + 1] ?? '') as MarketChangeBody;
    if (body && typeof body === 'object' && typeof body.kind === 'string') return { ...body, seq };
  } catch {
    // below
  }
  return { kind: 'lost', count: 1, seq };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
