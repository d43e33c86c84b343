/** Feed clients for the stream tests and the benchmark: SSE over fetch, a stalled raw socket, WebSocket. */
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import type { DraftEvent } from '../../../src/domain/stream-events.ts';

export interface FeedEvent {
  id?: string;
  topic: string;
  [key: string]: unknown;
}

export interface SseClient {
  status: number;
  headers: Headers;
  /** the problem body when status is not 200 */
  problem?: Record<string, unknown>;
  events: FeedEvent[];
  retry: number | undefined;
  heartbeats: number;
  ended: Promise<void>;
  waitFor(predicate: (events: FeedEvent[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): void;
}

import { waitUntil } from '../../helpers/wait.ts';

export { waitUntil };

/** Opens an SSE connection and parses its events as they come. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: FeedEvent[] = [];
  const client: SseClient = {
    status: res.status,
    headers: res.headers,
    events,
    retry: undefined,
    heartbeats: 0,
    ended: Promise.resolve(),
    waitFor: (predicate, timeoutMs = 15_000, what = 'events') => waitUntil(() => predicate(events), timeoutMs, what),
    close: () => abort.abort(),
  };
  if (res.status !== 200) {
    client.problem = (await res.json()) as Record<string, unknown>;
    return client;
  }
  client.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: string | undefined;
          let data: string | undefined;
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) client.heartbeats++;
            else if (line.startsWith('retry: ')) client.retry = Number(line.slice(7));
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data = line.slice(6);
          }
          if (data !== undefined) {
            const event = JSON.parse(data) as FeedEvent;
            if (id !== undefined && event.id !== id) throw new Error(`SSE id ${id} differs from the event's ${String(event.id)}`);
            events.push(event);
          }
        }
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  })();
  return client;
}

/** A client that sends the request and then never reads: resolves `closed` when the server drops it. */
export function stalledClient(base: string, path: string): { socket: Socket; closed: Promise<void>; head: string } {
  const url = new URL(base);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  const client = { socket, closed, head: '' };
  // Read the first bytes (the headers), then stop reading.
  socket.once('data', (chunk) => {
    client.head = String(chunk);
    socket.pause();
  });
  return client;
}

export interface WsClient {
  socket: WebSocket;
  events: FeedEvent[];
  /** non-event messages (subscribed, error) */
  replies: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  waitFor(predicate: (events: FeedEvent[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
}

/** Opens a WebSocket feed; rejects with the HTTP status when the upgrade is refused. */
export function openWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers });
  const events: FeedEvent[] = [];
  const replies: Array<Record<string, unknown>> = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    if (typeof message['topic'] === 'string') events.push(message as FeedEvent);
    else replies.push(message);
  });
  return new Promise((resolve, reject) => {
    socket.once('open', () =>
      resolve({ socket, events, replies, closed, waitFor: (predicate, timeoutMs = 15_000, what = 'events') => waitUntil(() => predicate(events), timeoutMs, what) }),
    );
    socket.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    socket.once('error', reject);
  });
}

/** A hand-made `auction.new` event for tests that publish to the hub directly (the item name pads its size). */
export function syntheticNew(uuid: string, itemName = 'Synthetic'): DraftEvent {
  return {
    topic: 'auction.new',
    time: Date.now(),
    uuid,
    tag: 'SYNTHETIC',
    variant: null,
    price: 1,
    bin: true,
    startingBid: 1,
    highestBid: 0,
    seller: 'synthetic',
    start: null,
    end: Date.now() + 60_000,
    item: { itemName, count: 1, tier: null, reforge: null, itemUid: null, itemCreatedAt: null, enchantments: {}, flatNbt: {} },
  };
}
