/** NetworthService.resolvePlayer over a fake of the player names it reads: a uuid or a name seen, never upstream. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { NetworthService, type NetworthStore } from '../../../src/services/networth.ts';
import type { ValuationService } from '../../../src/services/valuation.ts';
import { fakePlayerNames, notInThisFake } from '../../helpers/fake-repositories.ts';

const PLAYER = '0123456789abcdef0123456789abcdef';

function service() {
  const store: NetworthStore = {
    playerNames: fakePlayerNames([{ playerUuid: PLAYER, name: 'Mango_Grower' }]).repo,
    profileRequests: { get: notInThisFake('profileRequests.get'), request: notInThisFake('profileRequests.request') },
  };
  // resolvePlayer values nothing: the valuation is not reached.
  return new NetworthService({} as ValuationService, store, new ManualClock(0));
}

describe('NetworthService.resolvePlayer', () => {
  it('a uuid (dashes, upper case) is itself, with the name seen for it', async () => {
    const s = service();
    assert.deepEqual(await s.resolvePlayer(PLAYER.toUpperCase().replace(/^(.{8})(.{4})/, '$1-$2-')), { uuid: PLAYER, name: 'Mango_Grower' });
    assert.deepEqual(await s.resolvePlayer('f'.repeat(32)), { uuid: 'f'.repeat(32), name: null });
  });
  it('a name seen is its uuid, whatever its case; a name never seen is unknown', async () => {
    const s = service();
    assert.deepEqual(await s.resolvePlayer('mango_grower'), { uuid: PLAYER, name: 'Mango_Grower' });
    assert.equal(await s.resolvePlayer('Kiwi'), 'unknown');
  });
  it('neither a uuid nor a Minecraft name is invalid', async () => {
    const s = service();
    for (const bad of ['', 'two words', 'x'.repeat(17), 'na/me', '../etc', 'é']) assert.equal(await s.resolvePlayer(bad), 'invalid', bad);
  });
});
