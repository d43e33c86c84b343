/**
 * Account tiers. Higher tiers include every lower one; a paid tier whose expiry has
 * passed falls back to free. Pure: no I/O, the caller passes the time.
 */
export const TIERS = ['free', 'starter_premium', 'premium', 'premium_plus'] as const;
export type Tier = (typeof TIERS)[number];

/** Human names, as the docs and error messages spell them. */
export const TIER_NAMES: Record<Tier, string> = {
  free: 'Free',
  starter_premium: 'Starter Premium',
  premium: 'Premium',
  premium_plus: 'Premium+',
};

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}

export function tierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

/** True when `tier` includes everything `required` grants. */
export function tierAtLeast(tier: Tier, required: Tier): boolean {
  return tierRank(tier) >= tierRank(required);
}

/** The tier an account has right now: its stored tier until `expiresAt` (null = never), free after. */
export function effectiveTier(tier: Tier, expiresAt: number | null, nowMs: number): Tier {
  if (tier === 'free') return 'free';
  if (expiresAt !== null && expiresAt <= nowMs) return 'free';
  return tier;
}
