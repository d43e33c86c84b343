import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, DEFAULTS, loadConfig } from '../../../src/config.ts';

test('game data settings: GAME_DATA_DIR resolved, GAME_DATA_URL validated with a default', () => {
  const defaults = loadConfig({});
  assert.equal(defaults.gameDataDir, undefined);
  assert.equal(defaults.gameDataUrl, DEFAULTS.gameDataUrl);
  const set = loadConfig({ GAME_DATA_DIR: 'neu', GAME_DATA_URL: 'http://127.0.0.1:9/repo.tar.gz' });
  assert.equal(set.gameDataDir, resolve('neu'));
  assert.equal(set.gameDataUrl, 'http://127.0.0.1:9/repo.tar.gz');
  assert.throws(() => loadConfig({ GAME_DATA_URL: 'ftp://x/y' }), (err: unknown) => err instanceof ConfigError && /GAME_DATA_URL/.test(err.message));
});
