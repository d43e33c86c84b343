/**
 * GET /api/stream: the live feeds (docs/streaming.md) as Server-Sent Events, and on the same path
 * as a WebSocket (an upgrade request). The subscription comes from the query (both) or a
 * `subscribe` message (WebSocket); events come from the process's hub (services/stream.ts).
 *
 * Limits: concurrent connections per client IP and per account (STREAM_CONNECTIONS_PER_*,
 * raised by tier), 429 when exceeded; a connection that leaves more than STREAM_QUEUE_BYTES
 * unread is closed (it resumes with Last-Event-ID) without holding up the others.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { Counter, Gauge } from 'prom-client';
import { Type } from 'typebox';
import { compareEventIds, connectionAllowance, isEverything, type EventId, type Subscription } from '../domain/stream-events.ts';
import { Bucket } from '../domain/token-bucket.ts';
import { HttpProblem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import type { GapReason, RingBatch, StreamHub } from '../services/stream.ts';
import { parseResumeId, parseSubscription } from './subscription.ts';
import { StreamEventSchema, StreamQuery } from './schemas.ts';

/** the `retry:` hint: how long a client waits before it reconnects (ms) */
export const RETRY_MS = 3000;

interface Admission {
  subscription: Subscription;
  after: EventId | undefined;
  /** `after` is newer than any event (a gap, then live events) */
  future: boolean;
  release: () => void;
}

/** Open connections per client IP and per account, in this process. */
class ConnectionCounts {
  private readonly byIp = new Map<string, number>();
  private readonly byAccount = new Map<number, number>();

  constructor(private readonly base: { perIp: number; perAccount: number }) {}

  /** Counts a connection, or says why it is refused. The release is idempotent. */
  open(ip: string, account: { id: number; tier: Parameters<typeof connectionAllowance>[1] } | null): { release: () => void } | { refused: string } {
    const tier = account?.tier;
    if ((this.byIp.get(ip) ?? 0) >= connectionAllowance(this.base.perIp, tier)) return { refused: `at most ${connectionAllowance(this.base.perIp, tier)} feed connections from one address` };
    if (account && (this.byAccount.get(account.id) ?? 0) >= connectionAllowance(this.base.perAccount, tier)) {
      return { refused: `at most ${connectionAllowance(this.base.perAccount, tier)} feed connections per account` };
    }
    bump(this.byIp, ip, 1);
    if (account) bump(this.byAccount, account.id, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        bump(this.byIp, ip, -1);
        if (account) bump(this.byAccount, account.id, -1);
      },
    };
  }
}

function bump<K>(counts: Map<K, number>, key: K, delta: number): void {
  const n = (counts.get(key) ?? 0) + delta;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** One open feed connection, whatever its transport. */
abstract class Connection {
  /** skip events up to here (a resume that asked for more than the ring had yet) */
  protected after: EventId | undefined;
  closed = false;

  /** counted when the connection is cut off as too slow */
  onCutOff: () => void = () => undefined;
  /** the gap event written before a batch that follows lost events */
  lossGap: (batch: RingBatch) => unknown = () => undefined;

  constructor(
    protected subscription: Subscription,
    after: EventId | undefined,
    protected readonly queueBytes: number,
    private readonly onClosed: (c: Connection) => void,
  ) {
    this.after = after;
  }

  /** Writes what the subscription wants of a batch (`replay`: the resume's backlog, written whole). */
  deliver(batch: RingBatch, replay = false): void {
    if (this.closed) return;
    const after = this.after;
    if (after) {
      const last = batch.last;
      if (!last || compareEventIds(last.id, after) <= 0) return;
      this.after = undefined;
    }
    // Events were lost before this batch (Redis was away): say so before it, whatever the subscription.
    if (batch.followsLoss) this.writeGap(this.lossGap(batch));
    // What earlier batches left unsent (a batch itself may be larger than the limit: it is written whole).
    if (!replay && this.pending() > this.queueBytes) {
      this.cut('too slow: more than STREAM_QUEUE_BYTES unread; reconnect with Last-Event-ID');
      this.onCutOff();
      return;
    }
    this.write(batch, after);
  }

  protected abstract write(batch: RingBatch, after: EventId | undefined): void;
  protected abstract writeGap(gap: unknown): void;
  /** bytes written but not yet sent */
  protected abstract pending(): number;
  abstract heartbeat(): void;
  /** Says why and ends the connection (the client resumes with Last-Event-ID). */
  abstract cut(reason: string): void;

  protected closedNow(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed(this);
  }
}

class SseConnection extends Connection {
  constructor(
    private readonly res: FastifyReply['raw'],
    subscription: Subscription,
    after: EventId | undefined,
    queueBytes: number,
    onClosed: (c: Connection) => void,
  ) {
    super(subscription, after, queueBytes, onClosed);
    res.once('close', () => this.closedNow());
  }

  protected write(batch: RingBatch, after: EventId | undefined): void {
    if (!after && isEverything(this.subscription) && !batch.personal) this.res.write(batch.sseAll());
    else {
      const text = batch.sseFor(this.subscription, after);
      if (text !== '') this.res.write(text);
    }
  }

  protected writeGap(gap: unknown): void {
    this.res.write(`data: ${JSON.stringify(gap)}\n\n`);
  }

  protected pending(): number {
    return this.res.writableLength;
  }

  heartbeat(): void {
    if (!this.closed) this.res.write(': heartbeat\n\n');
  }

  cut(reason: string): void {
    if (this.closed) return;
    // Taken now: once the last frame is handed to the kernel the response lets go of its socket,
    // which would then idle as a keep-alive connection until its timeout.
    const socket = this.res.socket;
    this.res.end(`data: ${JSON.stringify({ topic: 'closed', time: Date.now(), reason })}\n\n`);
    // A client that reads nothing never takes the last frame: drop the connection with a reset, which
    // also drops what the kernel still holds for it (a plain close would keep sending it, probing a
    // zero window with backoff).
    setTimeout(() => {
      if (socket && !socket.destroyed) socket.resetAndDestroy();
    }, 1000).unref();
    this.closedNow();
  }
}

class WsConnection extends Connection {
  constructor(
    private readonly socket: WebSocket,
    subscription: Subscription,
    after: EventId | undefined,
    queueBytes: number,
    onClosed: (c: Connection) => void,
  ) {
    super(subscription, after, queueBytes, onClosed);
    socket.once('close', () => this.closedNow());
  }

  resubscribe(subscription: Subscription): void {
    this.subscription = subscription;
  }

  protected write(batch: RingBatch, after: EventId | undefined): void {
    const everything = !after && isEverything(this.subscription) && !batch.personal;
    for (const e of batch.events) {
      if (after && compareEventIds(e.id, after) <= 0) continue;
      if (everything || e.matches(this.subscription)) this.socket.send(e.json);
    }
  }

  protected writeGap(gap: unknown): void {
    this.socket.send(JSON.stringify(gap));
  }

  protected pending(): number {
    return this.socket.bufferedAmount;
  }

  send(message: unknown): void {
    if (!this.closed) this.socket.send(JSON.stringify(message));
  }

  heartbeat(): void {
    if (!this.closed) this.socket.ping();
  }

  cut(reason: string, code = 1008): void {
    if (this.closed) return;
    this.socket.close(code, reason.slice(0, 120));
    setTimeout(() => this.socket.terminate(), 1000).unref();
    this.closedNow();
  }
}

/**
 * What one feed WebSocket may send (issue 45: 3,000 subscribe messages of 100 tags each on one
 * socket held the event loop). One subscription per connection, which a `subscribe` replaces
 * (at most MAX_TAGS tags); messages of at most `messageBytes`; `burst` at once and `perSecond`
 * sustained. Beyond, the socket is closed: 1008 (policy) for the rate, 1009 for the size.
 */
export const WS_MESSAGE_LIMITS = { burst: 10, perSecond: 2, messageBytes: 16 * 1024 } as const;

export async function streamRoutes(app: FastifyInstance) {
  const feed = app.services.stream;
  const hub: StreamHub = feed.hub;
  const { config } = app.context;
  const counts = new ConnectionCounts({ perIp: config.streamConnectionsPerIp, perAccount: config.streamConnectionsPerAccount });
  const connections = new Set<Connection>();
  const admissions = new WeakMap<FastifyRequest, Admission>();
  const queueBytes = config.streamQueueBytes;

  const registry = app.context.metrics.registry;
  new Gauge({
    name: 'skymarket_stream_connections',
    help: 'open live-feed connections (SSE and WebSocket) of this process',
    registers: [registry],
    collect() {
      this.set(connections.size);
    },
  });
  const refusals = new Counter({ name: 'skymarket_stream_refused_total', help: 'live-feed connections refused for the per-address or per-account limit', registers: [registry] });
  const cutOffs = new Counter({ name: 'skymarket_stream_cut_off_total', help: 'live-feed connections closed because they left more than STREAM_QUEUE_BYTES unread', registers: [registry] });
  new Gauge({
    name: 'skymarket_stream_ring_events',
    help: 'events this process holds for resumes (Last-Event-ID)',
    registers: [registry],
    collect() {
      this.set(hub.size);
    },
  });
  const onBatch = (batch: RingBatch) => {
    for (const c of connections) c.deliver(batch);
  };
  hub.batches.on('batch', onBatch);
  const heartbeat = setInterval(() => {
    for (const c of connections) c.heartbeat();
  }, config.streamHeartbeatSeconds * 1000);
  heartbeat.unref();
  app.addHook('preClose', async () => {
    clearInterval(heartbeat);
    hub.batches.off('batch', onBatch);
    for (const c of [...connections]) c.cut('the server is shutting down; reconnect with Last-Event-ID');
  });

  const opened = (c: Connection, release: () => void) => {
    c.onCutOff = () => cutOffs.inc();
    c.lossGap = lossGap;
    connections.add(c);
    return () => {
      connections.delete(c);
      release();
    };
  };

  /** The events after `after` that the ring still has, or a gap. */
  const backlog = (admission: Admission) => (admission.after ? hub.resume(admission.after, admission.future) : { gap: false as const, batches: [] as RingBatch[] });
  const gapEvent = (after: EventId, found: { reason: GapReason; oldest: string | null }) => {
    const id = `${after.ms}-${after.seq}-${after.index}`;
    return {
      topic: 'gap',
      time: Date.now(),
      lastEventId: id,
      oldestEventId: found.oldest,
      detail:
        found.reason === 'future'
          ? `No event has the id ${id} (newer than the newest event): events since the state you keep may have been missed; reload it, then follow the live events.`
          : `Events after ${id} are no longer kept (retention ${config.streamRetentionSeconds} s, or from before this server started): some were missed; reload the state you keep, then follow the live events.`,
    };
  };
  const lossGap = (batch: RingBatch) => ({
    topic: 'gap',
    time: Date.now(),
    lastEventId: batch.lostAfter ?? null,
    oldestEventId: batch.events[0]?.idText ?? null,
    detail: `Events between ${batch.lostAfter ?? 'the start'} and ${batch.events[0]?.idText} were lost (Redis was unreachable): reload the state you keep, then follow the live events.`,
  });

  app.route<{ Querystring: Record<string, string> }>({
    method: 'GET',
    url: '/api/stream',
    schema: {
      tags: ['stream'],
      summary: 'Live feeds: new auctions, sales, lowest-BIN and bazaar changes, pushed (Server-Sent Events, or a WebSocket on the same path)',
      description:
        'Server-Sent Events (`Accept: text/event-stream`): one `data:` JSON event per message with its `id:`; `retry:` hint; a `: heartbeat` comment when quiet. ' +
        'Resumable with `Last-Event-ID` over the retention window (STREAM_RETENTION_SECONDS, at least 10 minutes): exactly the missed events, or a `gap` event when the id is older. ' +
        'A WebSocket upgrade on this path gets the same events as text messages; it may send `{"type":"subscribe", …the same parameters…}` to change its subscription. ' +
        'Concurrent connections are limited per address and per account (429). See docs/streaming.md.',
      querystring: StreamQuery,
      response: {
        200: { description: 'text/event-stream of events', content: { 'text/event-stream': { schema: StreamEventSchema } } },
        ...problemResponses(400, 401, 429),
      },
    },
    config: { cache: 'no-store', auth: 'optionalToken' },
    // A HEAD answer would be an event stream without a body that never ends.
    exposeHeadRoute: false,
    preHandler: async (request) => {
      const query = request.query as Record<string, unknown>;
      const subscription = await parseSubscription(query, feed, request.account?.id);
      const after = parseResumeId(request.headers['last-event-id'], query['lastEventId']);
      // Settled before the connection opens: the check may ask Redis for the stream's newest id.
      const future = after !== undefined && (await hub.isFuture(after));
      const slot = counts.open(request.clientIp, request.account ? { id: request.account.id, tier: request.account.tier } : null);
      if ('refused' in slot) refusals.inc();
      if ('refused' in slot) throw new HttpProblem(429, 'too_many_connections', `Too many open feed connections: ${slot.refused}.`, {}, { 'Retry-After': '30' });
      // The count is released however the connection ends, even before it is served.
      request.raw.socket.once('close', slot.release);
      admissions.set(request, { subscription, after, future, release: slot.release });
    },
    handler: (request, reply) => {
      const admission = admissions.get(request)!;
      reply.hijack();
      const res = reply.raw;
      const headers: Record<string, string | number | string[]> = {};
      for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v;
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      res.socket?.setNoDelay(true);
      res.write(`retry: ${RETRY_MS}\n\n`);
      const { after } = admission;
      let close: () => void = () => undefined;
      // After an id from the future the connection follows the live events from now.
      const connection = new SseConnection(res, admission.subscription, admission.future ? undefined : after, queueBytes, () => close());
      close = opened(connection, admission.release);
      const found = backlog(admission);
      if (found.gap) res.write(`data: ${JSON.stringify(gapEvent(after!, found))}\n\n`);
      else for (const batch of found.batches) connection.deliver(batch, true);
    },
    wsHandler: (socket: WebSocket, request: FastifyRequest) => {
      const admission = admissions.get(request);
      if (!admission) {
        socket.close(1011, 'not admitted');
        return;
      }
      const { after } = admission;
      let close: () => void = () => undefined;
      const connection = new WsConnection(socket, admission.subscription, admission.future ? undefined : after, queueBytes, () => close());
      close = opened(connection, admission.release);
      const bucket = new Bucket(WS_MESSAGE_LIMITS.burst, WS_MESSAGE_LIMITS.perSecond, performance.now());
      socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
        if (connection.closed) return;
        const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
        if (bytes > WS_MESSAGE_LIMITS.messageBytes) return connection.cut(`message_too_big: at most ${WS_MESSAGE_LIMITS.messageBytes} bytes`, 1009);
        if (bucket.take(performance.now()) > 0) {
          return connection.cut(`rate_limited: at most ${WS_MESSAGE_LIMITS.perSecond} messages per second (bursts of ${WS_MESSAGE_LIMITS.burst})`);
        }
        if (isBinary) return;
        void (async () => {
          let message: unknown;
          try {
            message = JSON.parse(String(data));
          } catch {
            connection.send({ type: 'error', status: 400, slug: 'invalid_message', detail: 'Messages are JSON objects: {"type":"subscribe", …}.' });
            return;
          }
          if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'subscribe') {
            connection.send({ type: 'error', status: 400, slug: 'invalid_message', detail: 'The only message is {"type":"subscribe", topics, tags, minPrice, maxPrice, …filters}.' });
            return;
          }
          try {
            connection.resubscribe(await parseSubscription(message as Record<string, unknown>, feed, request.account?.id));
            connection.send({ type: 'subscribed' });
          } catch (err) {
            const e = err as { status?: number; slug?: string; message?: string };
            connection.send({ type: 'error', status: e.status ?? 400, slug: e.slug ?? 'invalid_subscription', detail: e.message ?? 'invalid subscription' });
          }
        })();
      });
      const found = backlog(admission);
      if (found.gap) connection.send(gapEvent(after!, found));
      else for (const batch of found.batches) connection.deliver(batch, true);
    },
  });

  // The schema above documents the GET; the hub's state for operators.
  app.get('/api/stream/status', { schema: { tags: ['stream'], summary: 'The feed hub of this process: events held, the newest id, open connections', querystring: Type.Object({}) } }, async () => ({
    lastEventId: hub.lastId(),
    events: hub.size,
    connections: connections.size,
    shared: hub.shared,
  }));
}
