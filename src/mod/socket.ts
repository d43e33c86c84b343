/**
 * GET /modsocket: the in-game mod's WebSocket (protocol in docs/mod-protocol.md). The
 * account token comes in the upgrade request's Authorization / IdentityToken header
 * (checked by the auth plugin) or in a first `auth` message.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { presentedAccountToken } from '../http/auth.ts';
import { ModAlertChannel } from './alerts.ts';
import { ModSession } from './session.ts';

/**
 * Open sessions, counted per process, per account and per client IP, against MOD_SESSIONS_MAX,
 * MOD_SESSIONS_PER_ACCOUNT and MOD_SESSIONS_PER_IP: one free token once opened every session
 * the server had (issue 21). A session over a cap is closed with 1013 (try again later).
 */
class SessionCounts {
  private total = 0;
  private readonly byIp = new Map<string, number>();
  private readonly byAccount = new Map<number, number>();

  constructor(private readonly caps: { max: number; perIp: number; perAccount: number }) {}

  /** Counts a new connection; the reason it is refused (nothing counted) or undefined. */
  open(ip: string): string | undefined {
    if (this.total >= this.caps.max) return 'too many sessions, try again later';
    if ((this.byIp.get(ip) ?? 0) >= this.caps.perIp) return 'too many sessions from this address';
    this.total++;
    bump(this.byIp, ip, 1);
    return undefined;
  }

  /** Counts the connection's account, once it is known; the reason it is refused or undefined. */
  addAccount(accountId: number): string | undefined {
    if ((this.byAccount.get(accountId) ?? 0) >= this.caps.perAccount) return 'too many sessions for this account';
    bump(this.byAccount, accountId, 1);
    return undefined;
  }

  close(ip: string, accountId: number | undefined): void {
    this.total--;
    bump(this.byIp, ip, -1);
    if (accountId !== undefined) bump(this.byAccount, accountId, -1);
  }
}

function bump<K>(counts: Map<K, number>, key: K, delta: number): void {
  const n = (counts.get(key) ?? 0) + delta;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export async function modSocketRoutes(app: FastifyInstance) {
  const { store, clock } = app;
  const { config } = app.context;
  // @fastify/websocket is registered once by app.ts (with LIMITS.frameBytes), for this channel and the feeds.
  const sessions = new SessionCounts({ max: config.modSessionsMax, perIp: config.modSessionsPerIp, perAccount: config.modSessionsPerAccount });
  // IN_GAME alert targets: the alerts of the accounts with sessions here (docs/alerts.md).
  const alerts = new ModAlertChannel({ store, clock, logger: app.context.logger.child({ component: 'mod-alerts' }) });
  app.addHook('onClose', () => alerts.close());

  app.get(
    '/modsocket',
    {
      websocket: true,
      schema: {
        tags: ['mod'],
        summary: "WebSocket for the in-game mod (see docs/mod-protocol.md): account linking, screen syncs, lowball offers, API keys, and the account's IN_GAME alerts (`writeToChat`)",
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
      const ip = request.clientIp;
      const refused = sessions.open(ip);
      if (refused) {
        socket.close(1013, refused);
        return;
      }
      let accountId: number | undefined;
      const admit = (account: { id: number }): string | undefined => {
        const why = sessions.addAccount(account.id);
        if (!why) accountId = account.id;
        return why;
      };
      const onClose = () => sessions.close(ip, accountId);
      if (request.account) {
        const why = admit(request.account);
        if (why) {
          onClose();
          socket.close(1013, why);
          return;
        }
      }
      new ModSession(socket, { store, clock, logger: app.context.logger, admit, onClose, alerts }, request.account);
    },
  );
}
