/**
 * Who is calling: the identities the auth plugin (src/http/auth.ts) attaches to every
 * request, and the checks handlers use for gates that depend on parameters (a range of
 * days, an export window). Static gates are route options instead (route-config.ts).
 */
import type { FastifyRequest } from 'fastify';
import { HttpProblem } from './problem.ts';
import { TIER_NAMES, tierAtLeast, type Tier } from '../domain/tiers.ts';
import type { AccountIdentity, PartnerIdentity, PlayerKeyIdentity } from '../domain/identities.ts';

export type { AccountIdentity, PartnerIdentity, PlayerKeyIdentity };

declare module 'fastify' {
  interface FastifyRequest {
    /** the account of a valid bearer / IdentityToken / GoogleToken header, else null */
    account: AccountIdentity | null;
    /** the partner of a valid `token` query parameter, else null */
    partner: PartnerIdentity | null;
    /** the player of a valid, unexpired player API key, else null */
    playerKey: PlayerKeyIdentity | null;
  }
}

export const TOKEN_HELP =
  'Missing or invalid token. Provide a valid token in one of the headers:\n- Authorization: Bearer {token}\n- IdentityToken: {token}';

/** 401 for a missing or invalid account token; `message` keeps the shape older clients read. */
export function tokenRequired(): HttpProblem {
  return new HttpProblem(401, 'token_required', TOKEN_HELP, { message: TOKEN_HELP }, { 'WWW-Authenticate': 'Bearer' });
}

/** 403 for a valid account whose tier is below `required`. */
export function tierTooLow(required: Tier, what: string): HttpProblem {
  return new HttpProblem(403, 'tier_required', `${what} requires ${TIER_NAMES[required]} or higher.`, { requiredTier: required });
}

/** Throws unless the request carries an account of at least `required`; returns that account. */
export function requireTier(request: FastifyRequest, required: Tier, what = 'This endpoint'): AccountIdentity {
  const account = request.account;
  if (!account) throw tokenRequired();
  if (!tierAtLeast(account.tier, required)) throw tierTooLow(required, what);
  return account;
}

/**
 * Throws unless the request's player API key belongs to `playerUuid` (and `profileUuid`,
 * when the key is bound to a profile): a key reads only its own player's data.
 * Returns the key. Uuids compare without dashes, case-insensitively.
 */
export function requireOwnPlayer(request: FastifyRequest, playerUuid: string, profileUuid?: string | null): PlayerKeyIdentity {
  const key = request.playerKey;
  if (!key) throw new HttpProblem(401, 'api_key_required', 'This endpoint needs a player API key: query apiKey (or apikey, key) or header X-Api-Key.');
  const norm = (v: string) => v.replace(/-/g, '').toLowerCase();
  if (norm(playerUuid) !== key.playerUuid) {
    throw new HttpProblem(403, 'other_player', "This API key belongs to another player; a key reads only its own player's data.");
  }
  if (profileUuid && key.profileUuid !== null && norm(profileUuid) !== key.profileUuid) {
    throw new HttpProblem(403, 'other_profile', "This API key is bound to another profile of the player.");
  }
  return key;
}
