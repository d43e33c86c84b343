/** `skymarket links set|show|remove`: the actions on both backends, and the real command once. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { linksRemove, linksSet, linksShow } from '../../../src/mod/admin.ts';
import { Store } from '../../../src/store/index.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const PLAYER = '01234567-89ab-cdef-0123-456789abcdef';

describeEachBackend('links admin', (fixture) => {
  it('sets, shows and removes a link; refuses bad input', async () => {
    const { store } = fixture();
    const { account } = await store.accounts.create({ tier: 'free', now: NOW });
    const id = String(account.id);
    assert.match((await linksSet(store, id, PLAYER, { name: 'Alice_1' }, NOW))[0]!, /linked account \d+ ↔ player 0123456789abcdef0123456789abcdef 'Alice_1' \(operator/);
    assert.equal((await store.modLinks.linkOf(account.id))?.playerUuid, '0123456789abcdef0123456789abcdef');
    assert.equal((await store.playerNames.findByName('alice_1'))?.playerUuid, '0123456789abcdef0123456789abcdef');
    await store.modLinks.startChallenge(account.id, '0123456789abcdef0123456789abcdef', null, NOW);
    const shown = await linksShow(store, id, NOW);
    assert.equal(shown.length, 2);
    assert.match(shown[1]!, /open challenge: bid \d+/);
    assert.deepEqual(await linksRemove(store, id), [`unlinked account ${id}`]);
    assert.match((await linksShow(store, id, NOW))[0]!, /is not linked/);
    await assert.rejects(linksRemove(store, id), /is not linked/);
    await assert.rejects(linksSet(store, id, 'nope', {}, NOW), /player must be a uuid/);
    await assert.rejects(linksSet(store, id, PLAYER, { name: 'bad name' }, NOW), /--name must be/);
    await assert.rejects(linksSet(store, '999999', PLAYER, {}, NOW), /no account 999999/);
    await assert.rejects(linksSet(store, 'x', PLAYER, {}, NOW), /account id must be/);
  });
});

const BIN = join(import.meta.dirname, '../../../bin/skymarket.js');

describe('skymarket links (real process)', () => {
  it('links an account in the database a server has open', async () => {
    const { path: dir, remove } = tempDir('cli-links');
    const server = await Store.open({ dataDir: dir });
    try {
      const { account } = await server.accounts.create({ tier: 'free', now: NOW });
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const env = { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' };
        const child = spawn(process.execPath, [BIN, 'links', 'set', String(account.id), PLAYER, '--data-dir', dir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^database: sqlite:${dir}/skymarket\\.db\nlinked account`));
      assert.equal((await server.modLinks.linkOf(account.id))?.method, 'operator');
    } finally {
      await server.close();
      remove();
    }
  });
});
