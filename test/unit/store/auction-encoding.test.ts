/** The stored forms of an auction's coop list and item bytes (store/auction-encoding.ts). */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { it } from 'node:test';
import { createHash } from 'node:crypto';
import { coopColumn, coopOf, compactItemBytes, itemNbtOf, withSaleBid, type SaleColumns } from '../../../src/store/auction-encoding.ts';
import { ITEM_DICTIONARY_V1 } from '../../../src/store/item-dictionary.ts';
import { Market } from '../../../src/simulator/market.ts';

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

it("a listing's stored item bytes (gzip) inflate back to the NBT", () => {
  const nbt = Buffer.from('0a0000090001690a00000000', 'hex');
  const gz = gzipSync(nbt);
  assert.deepEqual(Buffer.from(itemNbtOf(gz)!), nbt);
  assert.equal(itemNbtOf(new Uint8Array()), null);
  assert.equal(itemNbtOf(Buffer.from('not gzip at all, not gzip at all')), null);
  assert.equal(itemNbtOf(gz.subarray(0, gz.length - 6)), null, 'truncated');
});

it('the preset dictionary of format 1 never changes (stored rows depend on its bytes)', () => {
  assert.equal(ITEM_DICTIONARY_V1.length, 32_768);
  assert.equal(createHash('sha256').update(ITEM_DICTIONARY_V1).digest('hex'), '1ecb7eb8b3d87055bd7196935372ea20f46d304fa06b2d257242260f03d3b683');
});

it("a sale's item bytes are its NBT deflated with the dictionary, much smaller, and inflate back", () => {
  const market = new Market({ seed: 5, auctions: 300, generationSeconds: 60, bazaarSeconds: 20 }, Date.UTC(2026, 10, 22));
  market.populate();
  let gzipBytes = 0;
  let compactBytes = 0;
  for (const a of market.generation().auctions) {
    const gzip = Buffer.from(a.item_bytes, 'base64');
    const compact = compactItemBytes(a.item_bytes);
    assert.equal(compact[0], 0x01);
    assert.deepEqual(Buffer.from(itemNbtOf(compact)!), Buffer.from(itemNbtOf(gzip)!));
    gzipBytes += gzip.length;
    compactBytes += compact.length;
  }
  assert.ok(compactBytes < gzipBytes * 0.6, `${compactBytes} of ${gzipBytes} bytes`);
  // Bytes that do not inflate are kept as they are (the item decoder rejected them before anyway).
  const junk = Buffer.from('plain text, not gzip').toString('base64');
  assert.deepEqual(compactItemBytes(junk), Buffer.from(junk, 'base64'));
  assert.equal(itemNbtOf(Buffer.from([0x01, 0xff, 0xff])), null, 'format 1 that does not inflate');
});

it("a sale's winning bid is read from its row, in amount order, unless a stored bid has its amount", () => {
  const sale: SaleColumns = { uuid: 'u', state: 'sold', sold_price: 150, buyer: X, sold_at: 9, buyer_profile: Y };
  const stored = [
    { auction_uuid: 'u', amount: 100, bidder: S, profile_id: null, placed_at: 1 },
    { auction_uuid: 'u', amount: 200, bidder: S, profile_id: null, placed_at: 2 },
  ];
  const bid = { auction_uuid: 'u', amount: 150, bidder: X, profile_id: Y, placed_at: 9 };
  assert.deepEqual(withSaleBid(stored, sale), [stored[0], bid, stored[1]]);
  assert.deepEqual(withSaleBid([], { ...sale, buyer_profile: '' }), [{ ...bid, profile_id: null }], "'' = the feed named no profile");
  assert.deepEqual(withSaleBid(stored, { ...sale, sold_price: 200 }), stored, 'a stored bid with that amount stands');
  assert.deepEqual(withSaleBid(stored, { ...sale, buyer_profile: null }), stored, 'not recorded from auctions_ended');
  assert.deepEqual(withSaleBid(stored, { ...sale, state: 'active' }), stored);
  assert.deepEqual(withSaleBid(stored, undefined), stored);
});
