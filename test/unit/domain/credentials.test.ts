import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateToken, hasTokenShape, hashesEqual, hashToken } from '../../../src/domain/credentials.ts';
import { compactPlayerUuid } from '../../../src/domain/player-data.ts';
import { effectiveTier, tierAtLeast } from '../../../src/domain/tiers.ts';

describe('credentials', () => {
  it('generates 256-bit tokens with a kind prefix, each different', () => {
    const a = generateToken('account');
    const b = generateToken('account');
    assert.notEqual(a, b);
    assert.match(a, /^sma_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(a.slice(4), 'base64url').length, 32);
    assert.match(generateToken('apiKey'), /^sk_/);
    assert.match(generateToken('partner'), /^smp_/);
  });

  it('checks the shape per kind before any lookup', () => {
    assert.ok(hasTokenShape('account', generateToken('account')));
    assert.ok(!hasTokenShape('account', generateToken('apiKey')), 'an API key is not an account token');
    assert.ok(!hasTokenShape('apiKey', 'short'));
    assert.ok(!hasTokenShape('account', generateToken('account') + 'x'));
    assert.ok(!hasTokenShape('account', 'sma_' + '!'.repeat(43)));
  });

  it('hashes with SHA-256 and compares hashes', () => {
    const t = generateToken('account');
    assert.equal(hashToken(t), hashToken(t));
    assert.equal(hashToken(t).length, 64);
    assert.ok(hashesEqual(hashToken(t), hashToken(t)));
    assert.ok(!hashesEqual(hashToken(t), hashToken(t + 'x')));
    assert.ok(!hashesEqual(hashToken(t), 'abcd'));
    assert.ok(!hashesEqual('', ''));
  });

  it('normalizes uuids', () => {
    assert.equal(compactPlayerUuid('0123456789ABCDEF0123456789abcdef'), '0123456789abcdef0123456789abcdef');
    assert.equal(compactPlayerUuid('01234567-89ab-cdef-0123-456789abcdef'), '0123456789abcdef0123456789abcdef');
    assert.equal(compactPlayerUuid('not-a-uuid'), undefined);
  });

  it('tiers include lower ones and fall back to free when expired', () => {
    assert.ok(tierAtLeast('premium_plus', 'premium'));
    assert.ok(tierAtLeast('premium', 'starter_premium'));
    assert.ok(!tierAtLeast('starter_premium', 'premium'));
    assert.equal(effectiveTier('premium', 1000, 999), 'premium');
    assert.equal(effectiveTier('premium', 1000, 1000), 'free');
    assert.equal(effectiveTier('premium_plus', null, 1e15), 'premium_plus');
  });
});
