/**
 * Who may be calling: an account (bearer token), a partner (query token) or a player API key.
 * The store reads and writes them; the HTTP auth plugin attaches them to requests (http/access.ts).
 */
import type { Tier } from './tiers.ts';

export interface AccountIdentity {
  id: number;
  name: string | null;
  /** effective tier: the stored tier, or free once it expired */
  tier: Tier;
  tierExpiresAt: number | null;
}

export interface PartnerIdentity {
  id: number;
  name: string;
}

export interface PlayerKeyIdentity {
  id: number;
  playerUuid: string;
  profileUuid: string | null;
  expiresAt: number;
}
