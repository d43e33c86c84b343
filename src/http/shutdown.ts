/**
 * Graceful shutdown support. Fastify's close() stops accepting connections and waits
 * for in-flight requests, but a keep-alive connection that finishes its request during
 * shutdown would otherwise stay open until the keep-alive timeout (72 s). Once
 * closing starts, every response says `Connection: close`, so the socket ends with it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** true once close() has started: responses then say Connection: close */
    isClosing(): boolean;
  }
}

export const shutdownPlugin = fp(
  async function shutdown(app: FastifyInstance) {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.decorate('isClosing', () => closing);
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'skymarket-shutdown' },
);
