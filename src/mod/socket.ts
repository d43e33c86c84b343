/**
 * GET /modsocket: the in-game mod's WebSocket (protocol in docs/mod-protocol.md). The
 * account token comes in the upgrade request's Authorization / IdentityToken header
 * (checked by the auth plugin) or in a first `auth` message.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { presentedAccountToken } from '../http/auth.ts';
import { LIMITS } from './messages.ts';
import { ModSession } from './session.ts';

/** Open mod sessions per server; more are refused with close code 1013. */
export const MAX_SESSIONS = 2000;

export async function modSocketRoutes(app: FastifyInstance) {
  const { store, clock } = app;
  await app.register(websocket, { options: { maxPayload: LIMITS.frameBytes, perMessageDeflate: false } });
  let open = 0;

  app.get(
    '/modsocket',
    {
      websocket: true,
      schema: {
        tags: ['mod'],
        summary: 'WebSocket for the in-game mod (see docs/mod-protocol.md): account linking, screen syncs, lowball offers, API keys',
        hide: false,
        querystring: Type.Object({}),
      },
      config: { cache: 'no-store' },
    },
    (socket, request) => {
      const presented = presentedAccountToken(request);
      if (presented.kind !== 'none' && !request.account) {
        socket.close(1008, 'invalid token');
        return;
      }
      if (open >= MAX_SESSIONS) {
        socket.close(1013, 'too many sessions, try again later');
        return;
      }
      open++;
      new ModSession(socket, { store, clock, logger: app.context.logger, onClose: () => open-- }, request.account);
    },
  );
}
