/**
 * The shared event log of the live feeds: one Redis stream (XADD bounded by `MAXLEN ~`, XRANGE and
 * XREAD BLOCK), read by every process's hub (services/stream.ts) and appended to by the ingesting
 * one. Only the transport: numbering, retention and gaps are the hub's. Two connections: one that
 * blocks in XREAD, one for everything else.
 */
import { Redis } from 'ioredis';

/** A stream entry: its id (`<ms>-<seq>`) and its fields as Redis returns them (name, value, …). */
export type LogEntry = [id: string, fields: string[]];

export interface EventLogOptions {
  url: string;
  /** the stream's key (with the deployment's prefix) */
  key: string;
  /** the stream's approximate MAXLEN (entries) */
  maxLen: number;
  /** every connection error (ioredis retries on its own) */
  onError(err: Error): void;
}

/**
 * KEYS: the stream, then one claim key per event; ARGV: the claim's seconds, MAXLEN, the events'
 * JSON texts (as many as claims), then extra fields. Adds `events` = the JSON array of the claimed ones.
 */
const APPEND_CLAIMED = `
local n = #KEYS - 1
local claimed = {}
for i = 1, n do
  if redis.call('SET', KEYS[i + 1], '1', 'NX', 'EX', tonumber(ARGV[1])) then claimed[#claimed + 1] = ARGV[2 + i] end
end
if #claimed == 0 then return false end
local fields = { 'events', '[' .. table.concat(claimed, ',') .. ']' }
for i = n + 3, #ARGV do fields[#fields + 1] = ARGV[i] end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', tonumber(ARGV[2]), '*', unpack(fields))
`;

export class RedisEventLog {
  private readonly reader: Redis;
  private commands: Promise<Redis> | undefined;

  constructor(private readonly options: EventLogOptions) {
    this.reader = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: null });
    this.reader.on('error', (err) => options.onError(err));
  }

  connect(): Promise<void> {
    return this.reader.connect();
  }

  /** Entries from `start` on (an id, inclusive). */
  range(start: string): Promise<LogEntry[]> {
    return this.reader.xrange(this.options.key, start, '+') as Promise<LogEntry[]>;
  }

  /** The newest entry before `id` (exclusive), if any. */
  async before(id: string): Promise<LogEntry | undefined> {
    return ((await this.reader.xrevrange(this.options.key, `(${id}`, '-', 'COUNT', 1)) as LogEntry[])[0];
  }

  /** Entries after `cursor`, waiting up to `blockMs` for one; [] when none came. */
  async read(cursor: string, blockMs: number): Promise<LogEntry[]> {
    const answer = await this.reader.xread('BLOCK', blockMs, 'STREAMS', this.options.key, cursor);
    return answer ? (answer.flatMap(([, entries]) => entries) as LogEntry[]) : [];
  }

  /**
   * The stream's newest id and the newest id trimmed from it (Redis 7; '0-0' before), or null when
   * the stream does not exist (a Redis that restarted without its data).
   */
  async state(): Promise<{ lastId: string; maxDeletedId: string } | null> {
    const exists = await this.reader.exists(this.options.key);
    if (!exists) return null;
    const info = (await this.reader.call('XINFO', 'STREAM', this.options.key)) as unknown[];
    const field = (name: string) => {
      const i = info.indexOf(name);
      return i >= 0 ? String(info[i + 1]) : '0-0';
    };
    return { lastId: field('last-generated-id'), maxDeletedId: field('max-deleted-entry-id') };
  }

  /** The newest entry's id (on the second connection: the reader may be blocked), or null when empty. */
  async newestId(): Promise<string | null> {
    const client = await this.client();
    const last = (await client.xrevrange(this.options.key, '+', '-', 'COUNT', 1)) as LogEntry[];
    return last[0]?.[0] ?? null;
  }

  /** Appends an entry (`fields`: name, value, …); its id. */
  async append(fields: string[]): Promise<string> {
    const client = await this.client();
    return (await client.xadd(this.options.key, 'MAXLEN', '~', this.options.maxLen, '*', ...fields)) as string;
  }

  /**
   * Appends, in one entry, the events (JSON texts) whose claim key this call is the first to set
   * (`SET NX`, kept `claimSeconds`): several processes that derive the same events (the api replicas'
   * underpriced listings) add each once. `extra` fields (`lost`) go with the entry; the entry's id,
   * or null when every event was claimed before.
   */
  async appendClaimed(claims: readonly string[], events: readonly string[], claimSeconds: number, extra: readonly string[] = []): Promise<string | null> {
    const client = await this.client();
    const id = await client.eval(APPEND_CLAIMED, claims.length + 1, this.options.key, ...claims, String(claimSeconds), String(this.options.maxLen), ...events, ...extra);
    return typeof id === 'string' ? id : null;
  }

  close(): void {
    this.reader.disconnect();
    void this.commands?.then((c) => c.disconnect()).catch(() => undefined);
  }

  /** Every append waits for the one connection, so entries enter the stream in the order they were appended. */
  private client(): Promise<Redis> {
    this.commands ??= (async () => {
      const client = new Redis(this.options.url, { lazyConnect: true, maxRetriesPerRequest: 2 });
      client.on('error', (err) => this.options.onError(err));
      try {
        await client.connect();
      } catch (err) {
        // The next call tries a new connection.
        this.commands = undefined;
        client.disconnect();
        throw err;
      }
      return client;
    })();
    return this.commands;
  }
}
