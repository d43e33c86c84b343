/** What the /value and /player pages read of their input and how they order profiles (web/value-view.ts): pure. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auctionUuid, PasteError, pastedInputs, profilesInOrder } from '../../../src/web/value-view.ts';

describe('pasted items', () => {
  it('base64 loses its whitespace; NBT JSON is one item, a list, or the API body', () => {
    assert.deepEqual(pastedInputs(' H4sI\nAAAA\r\n AAA= '), ['H4sIAAAAAAA=']);
    assert.deepEqual(pastedInputs('{"id":"minecraft:stone"}'), [{ id: 'minecraft:stone' }]);
    assert.deepEqual(pastedInputs('[{"a":1},{"b":2}]'), [{ a: 1 }, { b: 2 }]);
    assert.deepEqual(pastedInputs('{"items":[{"a":1}],"data":"H4sI"}'), [{ a: 1 }, 'H4sI']);
  });
  it('nothing, broken JSON and text that is not base64 are PasteErrors saying which', () => {
    assert.throws(() => pastedInputs('  '), (e: Error) => e instanceof PasteError && /paste an item/.test(e.message));
    assert.throws(() => pastedInputs('{"id": '), (e: Error) => e instanceof PasteError && /not valid JSON/.test(e.message));
    assert.throws(() => pastedInputs('Hyperion <script>'), (e: Error) => e instanceof PasteError && /neither NBT JSON nor base64/.test(e.message));
  });
  it('an auction uuid: 32 hex digits, dashes and case ignored', () => {
    assert.equal(auctionUuid(' 0123456789ABCDEF0123456789abcdef '), '0123456789abcdef0123456789abcdef');
    assert.equal(auctionUuid('01234567-89ab-cdef-0123-456789abcdef'), '0123456789abcdef0123456789abcdef');
    assert.equal(auctionUuid('0123'), undefined);
    assert.equal(auctionUuid('g'.repeat(32)), undefined);
  });
  it('profiles: the selected one first, then by value', () => {
    const order = profilesInOrder([
      { id: 'a', selected: false, fullValue: 5 },
      { id: 'b', selected: false, fullValue: 9 },
      { id: 'c', selected: true, fullValue: 1 },
    ]).map((p) => p.id);
    assert.deepEqual(order, ['c', 'b', 'a']);
  });
});
