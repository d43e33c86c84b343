/** PlayersService over a fake of the one repository it reads (PlayersStore): no database. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlayersService, type PlayersStore } from '../../../src/services/players.ts';
import type { StoredFlip } from '../../../src/store/repositories/players.ts';

const PLAYER = 'a'.repeat(32);
const PROFILE = 'b'.repeat(32);
const OTHER_PROFILE = 'c'.repeat(32);

/** A player API key's identity (the key's player, and the profile it is bound to, if any). */
const keyOf = (playerUuid: string, profileUuid: string | null) => ({ id: 1, playerUuid, profileUuid, expiresAt: Number.MAX_SAFE_INTEGER });

/** One player's uploads; records which player each read asked for. */
function fakeStore(profileUuid: string | null) {
  const asked: string[] = [];
  const flip: StoredFlip = { itemTag: 'ENCHANTED_DIAMOND', itemName: 'Enchanted Diamond', amount: 64, buyTimesTen: 1000, sellTimesTen: 1200, soldAt: 5 };
  const store: PlayersStore = {
    players: {
      state: async (uuid) => {
        asked.push(uuid);
        return uuid === PLAYER ? { playerUuid: PLAYER, profileUuid, state: { purse: 1234 }, updatedAt: 1 } : undefined;
      },
      orders: async (uuid) => {
        asked.push(uuid);
        return uuid === PLAYER ? [{ isSell: false, itemTag: 'WHEAT', itemName: 'Wheat', amount: 10, filled: 0, pricePerUnit: 2, created: 2, customers: null, uploadedAt: 3 }] : [];
      },
      flips: async (uuid) => {
        asked.push(uuid);
        return uuid === PLAYER ? [flip] : [];
      },
    },
  };
  return { store, asked, flip };
}

describe('PlayersService (unit, over a fake store)', () => {
  it('reads the key\'s player: state, orders and flips', async () => {
    const { store, asked, flip } = fakeStore(PROFILE);
    const service = new PlayersService(store);
    const key = keyOf(PLAYER, PROFILE);
    const extracted = await service.extracted(key);
    assert.equal(extracted.purse, 1234);
    assert.equal((await service.orders(key)).length, 1);
    assert.deepEqual(await service.flips(key), [flip]);
    assert.deepEqual(asked, [PLAYER, PLAYER, PLAYER]);
  });

  it('a key bound to another profile reads the defaults, not state synced from that profile', async () => {
    const { store } = fakeStore(PROFILE);
    const service = new PlayersService(store);
    const bound = await service.extracted(keyOf(PLAYER, OTHER_PROFILE));
    const unbound = await service.extracted(keyOf(PLAYER, null));
    assert.equal(bound.purse, 0, 'the default purse');
    assert.equal(unbound.purse, 1234);
  });

  it('state uploaded without a profile is read by every key of the player; an unknown player gets the defaults', async () => {
    const { store } = fakeStore(null);
    const service = new PlayersService(store);
    assert.equal((await service.extracted(keyOf(PLAYER, OTHER_PROFILE))).purse, 1234);
    const unknown = await service.extracted(keyOf('d'.repeat(32), null));
    assert.equal(unknown.purse, 0, 'the default purse');
  });
});
