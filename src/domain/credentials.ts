/**
 * Credentials: account tokens, player API keys and partner tokens. Each is 256 random
 * bits (base64url) behind a short kind prefix, shown once and stored only as its
 * SHA-256 hash. Pure apart from the random source; no I/O.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type CredentialKind = 'account' | 'apiKey' | 'partner';

const PREFIX: Record<CredentialKind, string> = { account: 'sma_', apiKey: 'sk_', partner: 'smp_' };
const SHAPE: Record<CredentialKind, RegExp> = {
  account: /^sma_[A-Za-z0-9_-]{43}$/,
  apiKey: /^sk_[A-Za-z0-9_-]{43}$/,
  partner: /^smp_[A-Za-z0-9_-]{43}$/,
};

/** Player API keys expire this long after creation. */
export const API_KEY_LIFETIME_MS = 180 * 86_400_000;

/** A fresh credential of `kind`: 32 random bytes, base64url, with the kind's prefix. */
export function generateToken(kind: CredentialKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

/** True when `token` has the exact shape skymarket issues for `kind` (checked before any lookup). */
export function hasTokenShape(kind: CredentialKind, token: string): boolean {
  return token.length <= 64 && SHAPE[kind].test(token);
}

/** SHA-256 of the token, hex: what the database stores. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time equality of two hex hashes (false when the lengths differ). */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

