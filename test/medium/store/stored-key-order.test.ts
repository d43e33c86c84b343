/** PostgreSQL's jsonb returns keys in the order domain/stored-key-order.ts writes them. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { compareStoredKeys, inStoredKeyOrder } from '../../../src/domain/stored-key-order.ts';
import { IN_CI, POSTGRES_TEST_URL, postgresUnavailable } from '../../helpers/databases.ts';

const skip = postgresUnavailable && !IN_CI ? `PostgreSQL unavailable: ${postgresUnavailable}` : false;

describe('jsonb key order', { skip }, () => {
  let client: pg.Client;
  before(async () => {
    client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await client.connect();
  });
  after(() => client.end());

  it('a map written in any order reads back from jsonb in inStoredKeyOrder order', async () => {
    const keys = ['rarity_upgrades', 'modifier', 'uid', 'uuid', 'id', 'enchantments.sharpness', 'petInfo.tier', 'gems.JADE_0', 'b', 'a', 'ab', 'ba', 'é', 'z', 'zz', 'Éa', '_x', 'X', 'x1', 'x10', 'x2'];
    // Several shuffles, deterministic.
    for (let round = 0; round < 8; round++) {
      const shuffled = keys.map((k, i) => ({ k, r: (i * 7919 + round * 104729) % 97 })).sort((a, b) => a.r - b.r).map((x) => x.k);
      const map = Object.fromEntries(shuffled.map((k, i) => [k, String(i)]));
      const { rows } = await client.query<{ m: Record<string, string> }>('select $1::jsonb as m', [JSON.stringify(map)]);
      assert.deepEqual(Object.keys(rows[0]!.m), Object.keys(inStoredKeyOrder(map)), `round ${round}`);
    }
    assert.deepEqual([...keys].sort(compareStoredKeys).length, keys.length);
  });
});
