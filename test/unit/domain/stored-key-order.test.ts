import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareStoredKeys, inStoredKeyOrder } from '../../../src/domain/stored-key-order.ts';

describe('stored key order (PostgreSQL jsonb order)', () => {
  it('shorter keys first, then by bytes; values kept', () => {
    const map = { rarity_upgrades: '1', modifier: 'reinforced', uid: 'acd754ed5764', hot_potato_count: '10', id: 'X' };
    const ordered = inStoredKeyOrder(map);
    assert.deepEqual(Object.keys(ordered), ['id', 'uid', 'modifier', 'rarity_upgrades', 'hot_potato_count']);
    assert.deepEqual(ordered, map);
  });

  it('returns the same object when already in order, a new one otherwise', () => {
    const inOrder = { id: 'A', uid: 'b', modifier: 'c' };
    assert.equal(inStoredKeyOrder(inOrder), inOrder);
    const other = { modifier: 'c', id: 'A' };
    assert.notEqual(inStoredKeyOrder(other), other);
  });

  it('compares non-ASCII keys by their UTF-8 bytes (length in bytes first)', () => {
    // 'é' is two bytes: 'é' (2 bytes) sorts after 'z' (1 byte) and before 'aaa' (3 bytes).
    assert.deepEqual(['aaa', 'é', 'z'].sort(compareStoredKeys), ['z', 'é', 'aaa']);
    assert.ok(compareStoredKeys('ab', 'ab') === 0);
  });
});
