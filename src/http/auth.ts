/**
 * The auth plugin: reads the caller's credentials, attaches request.account / partner /
 * playerKey, and enforces each route's declared access rule (`config.auth`, `config.tier`,
 * see route-config.ts). It also documents those rules in the OpenAPI document: security
 * schemes, per-operation security and a tier note.
 *
 * Credentials:
 * - account token: `Authorization: Bearer <t>`, or the legacy `IdentityToken: <t>` / `GoogleToken: <t>`;
 * - player API key: query `apiKey` / `apikey` / `key`, or header `X-Api-Key`;
 * - partner token: query `token`.
 * Every credential is checked for shape before it touches the database, and is never logged.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { TIER_NAMES, tierAtLeast, type Tier } from '../domain/tiers.ts';
import { TOKEN_HELP, tierTooLow, tokenRequired, type AccountIdentity } from './access.ts';
import { HttpProblem } from './problem.ts';
import { routeFacts, type AuthMode } from './route-config.ts';

/** Longest credential value we look at; anything longer is refused without a lookup. */
const MAX_CREDENTIAL_LENGTH = 256;

/** OpenAPI security schemes, referenced by every protected operation. */
export const SECURITY_SCHEMES = {
  bearerToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Account token: `Authorization: Bearer <token>` (created with `skymarket accounts create`).',
  },
  identityToken: {
    type: 'apiKey',
    in: 'header',
    name: 'IdentityToken',
    description: 'Legacy header for the account token (`GoogleToken` is accepted too). Prefer Authorization: Bearer.',
  },
  playerApiKey: {
    type: 'apiKey',
    in: 'query',
    name: 'apiKey',
    description: 'Player API key (also as query `apikey` or `key`, or header `X-Api-Key`). Bound to one player; expires after 180 days.',
  },
  playerApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Player API key as a header.' },
  partnerToken: { type: 'apiKey', in: 'query', name: 'token', description: 'Partner token: extra data on selected endpoints.' },
} as const;

type Security = Array<Record<string, string[]>>;

const ACCOUNT_SECURITY: Security = [{ bearerToken: [] }, { identityToken: [] }];
const SECURITY: Record<Exclude<AuthMode, 'none'>, Security> = {
  token: ACCOUNT_SECURITY,
  // `{}` marks the credential optional in OpenAPI.
  optionalToken: [...ACCOUNT_SECURITY, {}],
  apiKey: [{ playerApiKey: [] }, { playerApiKeyHeader: [] }],
  partner: [{ partnerToken: [] }],
  optionalPartner: [{ partnerToken: [] }, {}],
};

/** The effective rule of a route: a tier implies an account token. */
export function routeAuthMode(config: { auth?: AuthMode; tier?: Tier } | undefined): AuthMode {
  const auth = config?.auth ?? 'none';
  if (config?.tier && (auth === 'none' || auth === 'optionalToken')) return 'token';
  return auth;
}

function tokenProblem(slug: string, detail: string): HttpProblem {
  return new HttpProblem(401, slug, detail, { message: TOKEN_HELP }, { 'WWW-Authenticate': 'Bearer' });
}

type Presented = { kind: 'none' } | { kind: 'malformed'; why: string } | { kind: 'token'; value: string };

/** The account token the request presents, in the order Authorization, IdentityToken, GoogleToken. */
export function presentedAccountToken(request: FastifyRequest): Presented {
  const { headers } = request;
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    if (Array.isArray(authorization)) return { kind: 'malformed', why: 'more than one Authorization header' };
    if (authorization.length > MAX_CREDENTIAL_LENGTH + 7) return { kind: 'malformed', why: 'the Authorization header is too long' };
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (match?.[1]) return { kind: 'token', value: match[1] };
    // Another scheme (Basic, …): fall through to the legacy headers.
  }
  for (const name of ['identitytoken', 'googletoken'] as const) {
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) return { kind: 'malformed', why: `more than one ${name} header` };
    const trimmed = value.trim();
    if (trimmed.length === 0) return { kind: 'malformed', why: 'an empty token header' };
    if (trimmed.length > MAX_CREDENTIAL_LENGTH) return { kind: 'malformed', why: 'the token header is too long' };
    return { kind: 'token', value: trimmed.replace(/^Bearer[ \t]+/i, '') };
  }
  if (authorization !== undefined) return { kind: 'malformed', why: 'the Authorization header is not of the form "Bearer <token>"' };
  return { kind: 'none' };
}

const API_KEY_QUERY = ['apiKey', 'apikey', 'key'] as const;

/** The player API key the request presents (query apiKey/apikey/key or header X-Api-Key). */
export function presentedApiKey(request: FastifyRequest): Presented {
  const found: string[] = [];
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const name of API_KEY_QUERY) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') return { kind: 'malformed', why: `query parameter ${name} is given more than once` };
    found.push(value);
  }
  const header = request.headers['x-api-key'];
  if (Array.isArray(header)) return { kind: 'malformed', why: 'more than one X-Api-Key header' };
  if (header !== undefined) found.push(header.trim());
  if (found.length === 0) return { kind: 'none' };
  if (new Set(found).size > 1) return { kind: 'malformed', why: 'different API keys in one request' };
  const value = found[0] as string;
  if (value.length === 0) return { kind: 'malformed', why: 'the API key is empty' };
  if (value.length > MAX_CREDENTIAL_LENGTH) return { kind: 'malformed', why: 'the API key is too long' };
  return { kind: 'token', value };
}

function presentedPartnerToken(request: FastifyRequest): Presented {
  const value = ((request.query ?? {}) as Record<string, unknown>).token;
  if (value === undefined) return { kind: 'none' };
  if (typeof value !== 'string') return { kind: 'malformed', why: 'query parameter token is given more than once' };
  if (value.length === 0 || value.length > MAX_CREDENTIAL_LENGTH) return { kind: 'malformed', why: 'the partner token has the wrong length' };
  return { kind: 'token', value };
}

const ACCOUNT_LOOKUP = Symbol('skymarket.accountLookup');
type WithLookup = FastifyRequest & { [ACCOUNT_LOOKUP]?: Promise<AccountIdentity | null> };

/**
 * The account of the request's token, looked up once per request (memoized), or null.
 * Used by the auth hook and by the rate-limit plugin (Premium+ unblocks a blacklisted IP).
 */
export function resolveAccount(app: FastifyInstance, request: FastifyRequest): Promise<AccountIdentity | null> {
  const r = request as WithLookup;
  if (r[ACCOUNT_LOOKUP]) return r[ACCOUNT_LOOKUP];
  const presented = presentedAccountToken(request);
  const lookup =
    presented.kind === 'token' ? app.store.accounts.findByToken(presented.value, app.clock.now()) : Promise.resolve(null);
  r[ACCOUNT_LOOKUP] = lookup;
  return lookup;
}

async function authenticate(app: FastifyInstance, request: FastifyRequest, mode: AuthMode): Promise<void> {
  const { config } = routeFacts(request);

  // Account token: identified on every route that sees one, required on token routes.
  const presented = presentedAccountToken(request);
  if (presented.kind !== 'none') {
    request.account = presented.kind === 'token' ? await resolveAccount(app, request) : null;
  }
  if (mode === 'token') {
    if (presented.kind === 'none') throw tokenRequired();
    if (presented.kind === 'malformed') throw tokenProblem('token_malformed', `Malformed token: ${presented.why}.`);
    if (!request.account) throw tokenProblem('token_invalid', 'The token is not valid: unknown, malformed or revoked.');
    if (config.tier) {
      const { tier } = config;
      if (!tierAtLeast(request.account.tier, tier)) throw tierTooLow(tier, 'This endpoint');
    }
  }

  if (mode === 'apiKey') {
    const key = presentedApiKey(request);
    if (key.kind === 'none') {
      throw new HttpProblem(401, 'api_key_required', 'This endpoint needs a player API key: query apiKey (or apikey, key) or header X-Api-Key.');
    }
    if (key.kind === 'malformed') throw new HttpProblem(401, 'api_key_malformed', `Malformed API key: ${key.why}.`);
    const { status, key: record } = await app.store.apiKeys.check(key.value, app.clock.now());
    switch (status) {
      case 'valid':
        if (!record) break;
        request.playerKey = { id: record.id, playerUuid: record.playerUuid, profileUuid: record.profileUuid, expiresAt: record.expiresAt };
        return;
      case 'expired':
        throw new HttpProblem(401, 'api_key_expired', 'The API key has expired (keys last 180 days). Create a new one in the mod.');
      case 'revoked':
        throw new HttpProblem(401, 'api_key_revoked', 'The API key has been revoked. Create a new one in the mod.');
      case 'malformed':
        throw new HttpProblem(401, 'api_key_malformed', 'Malformed API key: not a key skymarket issued.');
      default:
        throw new HttpProblem(401, 'api_key_invalid', 'Unknown API key.');
    }
    throw new HttpProblem(401, 'api_key_invalid', 'Unknown API key.');
  }

  if (mode === 'partner' || mode === 'optionalPartner') {
    const token = presentedPartnerToken(request);
    if (token.kind === 'token') request.partner = await app.store.partners.findByToken(token.value);
    if (mode === 'partner') {
      if (token.kind === 'none') throw new HttpProblem(401, 'partner_token_required', 'This endpoint needs a partner token: query parameter token.');
      if (!request.partner) throw new HttpProblem(403, 'partner_token_invalid', 'The partner token is not valid: unknown, malformed or revoked.');
    }
  }
}

const documented = new WeakSet<object>();

/** Adds the route's security requirement and a tier note to its OpenAPI operation. */
function documentRoute(routeOptions: RouteOptions): void {
  const config = routeOptions.config as { auth?: AuthMode; tier?: Tier } | undefined;
  const mode = routeAuthMode(config);
  if (mode === 'none') return;
  const schema = (routeOptions.schema ??= {}) as Record<string, unknown>;
  // GET and its implicit HEAD share one schema object: document it once.
  if (documented.has(schema)) return;
  documented.add(schema);
  if (schema.security === undefined) schema.security = SECURITY[mode];
  const notes: string[] = [];
  if (config?.tier && config.tier !== 'free') notes.push(`Requires a ${TIER_NAMES[config.tier]} (or higher) account token; 403 below that tier.`);
  else if (mode === 'token') notes.push('Requires an account token (any tier).');
  if (mode === 'token') notes.push('401 `{ "message": … }` without a valid token.');
  if (mode === 'apiKey') notes.push('Requires a player API key; returns only that player\'s data. 401 when missing, invalid, revoked or expired.');
  if (mode === 'partner') notes.push('Requires a partner token (query `token`): 401 when missing, 403 when invalid.');
  if (mode === 'optionalPartner') notes.push('A valid partner token (query `token`) unlocks extra data.');
  if (mode === 'optionalToken') notes.push('An account token is optional; some parameters need a higher tier.');
  // Document the refusals (the bodies are sent as problem details whatever the schema says).
  const refusals: Record<number, string> = {};
  if (mode === 'token' || mode === 'apiKey' || mode === 'partner') refusals[401] = 'Missing or invalid credential';
  if (config?.tier || mode === 'partner' || mode === 'apiKey') refusals[403] = mode === 'apiKey' ? 'Data of another player' : 'Tier too low, or invalid partner token';
  // Only next to the route's own responses: creating a response map would hide its default 200.
  const response = schema.response as Record<string, unknown> | undefined;
  if (response && Object.keys(refusals).length > 0) {
    for (const [status, description] of Object.entries(refusals)) {
      response[status] ??= { description, $ref: 'Problem#' };
    }
  }
  const note = `**Access:** ${notes.join(' ')}`;
  schema.description = typeof schema.description === 'string' && schema.description ? `${schema.description}\n\n${note}` : note;
}

export const authPlugin = fp(
  async function auth(app: FastifyInstance) {
    app.decorateRequest('account', null);
    app.decorateRequest('partner', null);
    app.decorateRequest('playerKey', null);

    app.addHook('onRoute', (routeOptions) => {
      documentRoute(routeOptions);
    });

    // Callback style: an open route called without an account credential passes without a promise.
    app.addHook('onRequest', (request, _reply, done) => {
      const mode = routeAuthMode(routeFacts(request).config);
      const { headers } = request;
      if (mode === 'none' && headers.authorization === undefined && headers.identitytoken === undefined && headers.googletoken === undefined) {
        done();
        return;
      }
      authenticate(app, request, mode).then(() => done(), done);
    });

    // Responses to credentialed routes are per caller: never let a shared cache keep them.
    app.addHook('onSend', (request, reply, payload, done) => {
      const mode = routeAuthMode(routeFacts(request).config);
      if (mode === 'none' || mode === 'optionalPartner') return done(null, payload);
      const cacheControl = reply.getHeader('cache-control');
      if (typeof cacheControl === 'string' && cacheControl.startsWith('public')) {
        reply.header('cache-control', cacheControl.replace(/^public/, 'private'));
      }
      done(null, payload);
    });
  },
  { name: 'skymarket-auth', dependencies: ['skymarket-errors'] },
);
