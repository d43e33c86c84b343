/**
 * Graceful shutdown support. Fastify's close() stops accepting connections and waits
 * for in-flight requests, but a keep-alive connection that finishes its request during
 * shutdown would otherwise stay open until the keep-alive timeout (72 s). Once
 * closing starts, every response says `Connection: close`, so the socket ends with it.
 *
 * WebSockets (the mod channel, the live feed) are closed first, with 1001 (going away): a client
 * that does not answer the close handshake is dropped after WS_CLOSE_WAIT_MS. `ws` itself would
 * wait 30 s for it, and the server's close with it, past SHUTDOWN_GRACE_SECONDS (issue 45).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** How long a WebSocket client may take to answer the close handshake at shutdown. */
export const WS_CLOSE_WAIT_MS = 1000;

/** What the shutdown needs of @fastify/websocket's server (registered later, by the data routes). */
interface WebSocketClients {
  clients: Set<{ readyState: number; close(code: number, reason: string): void; terminate(): void; once(event: 'close', listener: () => void): unknown }>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** true once close() has started: responses then say Connection: close */
    isClosing(): boolean;
  }
}

export const shutdownPlugin = fp(
  async function shutdown(app: FastifyInstance) {
    let closing = false;
    // Registered ahead of @fastify/websocket: this runs before its own preClose (a bare close(), no code).
    app.addHook('preClose', async () => {
      closing = true;
      const server = (app as unknown as { websocketServer?: WebSocketClients }).websocketServer;
      for (const client of server?.clients ?? []) {
        const timer = setTimeout(() => client.terminate(), WS_CLOSE_WAIT_MS);
        timer.unref();
        client.once('close', () => clearTimeout(timer));
        client.close(1001, 'the server is shutting down');
      }
    });
    app.decorate('isClosing', () => closing);
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'skymarket-shutdown' },
);
