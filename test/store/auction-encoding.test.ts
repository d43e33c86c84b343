/** The stored forms of an auction's coop list and item bytes (store/auction-encoding.ts). */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { it } from 'node:test';
import { coopColumn, coopOf, itemBytesColumn, itemNbtOf } from '../../src/store/auction-encoding.ts';

const S = 'a'.repeat(32);
const X = 'b'.repeat(32);
const Y = 'c'.repeat(32);

it('coop lists round-trip through the compact form, the seller as an empty entry', () => {
  const cases: Array<[string[] | undefined, string | null]> = [
    [undefined, null],
    [[], null],
    [[S], ''],
    [[S, X], `,${X}`],
    [[X, S, Y], `${X},,${Y}`],
    [[X], X],
    [[S, S], ','],
    // Lists the compact form cannot hold stay JSON.
    [['x,y', S], JSON.stringify(['x,y', S])],
    [['', S], JSON.stringify(['', S])],
    [['[x', S], JSON.stringify(['[x', S])],
  ];
  for (const [coop, stored] of cases) {
    assert.equal(coopColumn(coop, S), stored, JSON.stringify(coop));
    assert.deepEqual(coopOf(stored, S), coop ?? []);
  }
  // Rows from before migration 013: JSON text (SQLite) or a parsed jsonb array (PostgreSQL).
  assert.deepEqual(coopOf(JSON.stringify([X, S]), S), [X, S]);
  assert.deepEqual(coopOf([X, S], S), [X, S]);
});

it('item bytes are stored as the bytes their base64 encodes, and inflate back to the NBT', () => {
  const nbt = Buffer.from('0a0000090001690a00000000', 'hex');
  const gz = gzipSync(nbt);
  assert.deepEqual(itemBytesColumn(gz.toString('base64')), gz);
  assert.deepEqual(itemBytesColumn(gz.toString('base64url')), gz, 'URL-safe base64 too, as the item decoder reads it');
  assert.deepEqual(Buffer.from(itemNbtOf(gz)!), nbt);
  assert.equal(itemNbtOf(new Uint8Array()), null);
  assert.equal(itemNbtOf(Buffer.from('not gzip at all, not gzip at all')), null);
  assert.equal(itemNbtOf(gz.subarray(0, gz.length - 6)), null, 'truncated');
});
