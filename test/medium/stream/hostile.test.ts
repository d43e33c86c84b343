/**
 * A hostile live-feed client (issue 45 item 10): 3,000 subscribe messages of 100 tags each on one
 * WebSocket, and one oversized message. The socket is closed with a clear code once it goes over
 * the message limits, and only the messages within them were handled.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WS_MESSAGE_LIMITS } from '../../../src/stream/routes.ts';
import { MAX_TAGS } from '../../../src/stream/subscription.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { openWs, waitUntil } from './clients.ts';

describe('feed WebSocket message limits', () => {
  let t: TestApp;
  let origin: string;
  before(async () => {
    t = await createTestApp();
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  it('3,000 subscribe messages of 100 tags: closed 1008 after the burst, the rest never handled', async () => {
    const ws = await openWs(`${origin}/api/stream`);
    const tags = Array.from({ length: MAX_TAGS }, (_, i) => `ENCHANTED_ITEM_${i}`).join(',');
    const message = JSON.stringify({ type: 'subscribe', topics: 'auction.new', tags });
    for (let i = 0; i < 3000 && ws.socket.readyState === ws.socket.OPEN; i++) ws.socket.send(message);
    const closed = await ws.closed;
    assert.equal(closed.code, 1008);
    assert.match(closed.reason, /^rate_limited: at most 2 messages per second/);
    // Replies in flight when the socket closed are dropped: at most the burst (and what refilled) was handled.
    const handled = ws.replies.filter((r) => r['type'] === 'subscribed' || r['type'] === 'error').length;
    assert.ok(handled <= WS_MESSAGE_LIMITS.burst + 5, `${handled} messages handled`);
    // A new connection is served as usual.
    const next = await openWs(`${origin}/api/stream`);
    next.socket.send(message);
    await waitUntil(() => next.replies.some((r) => r['type'] === 'subscribed'), 10_000, 'subscribed');
    next.socket.close();
  });

  it('a message over the size limit: closed 1009', async () => {
    const ws = await openWs(`${origin}/api/stream`);
    ws.socket.send(JSON.stringify({ type: 'subscribe', tags: 'A'.repeat(WS_MESSAGE_LIMITS.messageBytes) }));
    const closed = await ws.closed;
    assert.equal(closed.code, 1009);
    assert.match(closed.reason, /^message_too_big/);
  });
});
