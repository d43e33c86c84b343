import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, describeConfig, loadConfig } from '../../src/config.ts';
import { prettyLogs } from '../../src/logger.ts';

describe('config', () => {
  it('reads the simulator settings (SIM_*) with the config, only for the demo, and names a bad one', () => {
    assert.equal(loadConfig({ SIM_AUCTIONS: 'lots' }).simulator, undefined, 'ignored without DEMO');
    assert.equal(loadConfig({ DEMO: 'true', SIM_AUCTIONS: '500' }).simulator?.auctions, 500);
    assert.throws(() => loadConfig({ DEMO: 'true', SIM_AUCTIONS: 'lots' }), (err: unknown) => err instanceof ConfigError && err.variable === 'SIM_AUCTIONS');
  });

  it('refuses role api without REDIS_URL: an API process follows the writer\'s market changes through Redis', () => {
    assert.throws(() => loadConfig({ ROLE: 'api' }), (err: unknown) => err instanceof ConfigError && err.variable === 'REDIS_URL' && /spine|market changes/.test(err.message));
    assert.equal(loadConfig({ ROLE: 'api', REDIS_URL: 'redis://cache:6379' }).role, 'api');
    assert.equal(loadConfig({ ROLE: 'ingest' }).role, 'ingest', 'the writer needs no Redis');
  });

  it('has documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.dataDir, resolve('./data'));
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.upstreamUrl, 'https://api.hypixel.net');
    assert.equal(c.trustProxy, false);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.logFormat, 'auto');
    assert.equal(c.upstreamTimeoutMs, 15_000);
    assert.equal(c.role, 'all');
    assert.equal(c.demo, false);
    assert.deepEqual(c.corsOrigins, ['*']);
    assert.equal(c.ingestDecodeWorkers, 0);
    assert.equal(c.npcUploadQuorum, 2);
    assert.deepEqual([loadConfig({ INGEST_DECODE_WORKERS: '2', NPC_UPLOAD_QUORUM: '1' }).ingestDecodeWorkers, loadConfig({ NPC_UPLOAD_QUORUM: '1' }).npcUploadQuorum], [2, 1]);
  });

  it('reads every variable and lets flags win', () => {
    const c = loadConfig(
      {
        PORT: '9000',
        HOST: '127.0.0.1',
        DATA_DIR: '/tmp/sm',
        DATABASE_URL: 'postgres://u:pw@db:5432/sky',
        REDIS_URL: 'redis://cache:6379/0',
        UPSTREAM_URL: 'http://127.0.0.1:7000/',
        TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
        LOG_LEVEL: 'WARN',
        ROLE: 'api',
        DEMO: 'true',
      },
      { port: '9100', role: 'ingest' },
    );
    assert.equal(c.port, 9100);
    assert.equal(c.role, 'ingest');
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dataDir, '/tmp/sm');
    assert.equal(c.databaseUrl, 'postgres://u:pw@db:5432/sky');
    assert.equal(c.redisUrl, 'redis://cache:6379/0');
    assert.equal(c.upstreamUrl, 'http://127.0.0.1:7000', 'trailing slash removed');
    assert.deepEqual(c.trustProxy, ['10.0.0.0/8', '127.0.0.1']);
    assert.equal(c.logLevel, 'warn');
    assert.equal(c.demo, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  });

  it('LOG_FORMAT: readable lines on a terminal unless json is asked for; JSON off a terminal unless pretty is', () => {
    assert.equal(loadConfig({ LOG_FORMAT: 'JSON' }).logFormat, 'json');
    assert.equal(prettyLogs('auto', true), true);
    assert.equal(prettyLogs('auto', false), false);
    assert.equal(prettyLogs('auto', undefined), false, 'a pipe or a file has no isTTY');
    assert.equal(prettyLogs('json', true), false);
    assert.equal(prettyLogs('pretty', false), true);
  });

  it('never prints passwords', () => {
    const described = describeConfig(loadConfig({ DATABASE_URL: 'postgres://u:hunter2@db/sky', REDIS_URL: 'redis://:s3cret@cache:6379' }));
    assert.doesNotMatch(JSON.stringify(described), /hunter2|s3cret/);
  });

  const invalid: Array<[Record<string, string>, string]> = [
    [{ PORT: 'abc' }, "Invalid PORT: expected an integer, got 'abc'"],
    [{ PORT: '70000' }, 'Invalid PORT: expected an integer from 0 to 65535, got 70000'],
    [{ DATABASE_URL: 'mysql://x/y' }, "Invalid DATABASE_URL: expected a postgres: or postgresql: URL, got 'mysql://x/y'"],
    [{ DATABASE_URL: 'not a url' }, "Invalid DATABASE_URL: not a valid URL: 'not a url'"],
    [{ REDIS_URL: 'http://cache' }, "Invalid REDIS_URL: expected a redis: or rediss: URL, got 'http://cache'"],
    [{ UPSTREAM_URL: 'ftp://x' }, "Invalid UPSTREAM_URL: expected a http: or https: URL, got 'ftp://x'"],
    [{ LOG_LEVEL: 'loud' }, "Invalid LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got 'loud'"],
    [{ LOG_FORMAT: 'fancy' }, "Invalid LOG_FORMAT: expected one of auto, json, pretty, got 'fancy'"],
    [{ ROLE: 'worker' }, "Invalid ROLE: expected one of all, api, ingest, jobs, got 'worker'"],
    [{ TRUST_PROXY: 'my proxy' }, "Invalid TRUST_PROXY: expected true, false, a hop count or a comma-separated list of IPs/CIDRs, got 'my proxy'"],
    [{ DEMO: 'maybe' }, "Invalid DEMO: expected true or false, got 'maybe'"],
    [{ BODY_LIMIT: '10' }, 'Invalid BODY_LIMIT: expected an integer from 1024 to 1073741824, got 10'],
    [{ INGEST_DECODE_WORKERS: '9' }, 'Invalid INGEST_DECODE_WORKERS: expected an integer from 0 to 8, got 9'],
    [{ NPC_UPLOAD_QUORUM: '0' }, 'Invalid NPC_UPLOAD_QUORUM: expected an integer from 1 to 1000, got 0'],
  ];
  for (const [env, message] of invalid) {
    it(`rejects ${Object.entries(env)[0]!.join('=')} with one line naming the variable`, () => {
      assert.throws(() => loadConfig(env), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.message, message);
        assert.equal(err.variable, Object.keys(env)[0]);
        assert.doesNotMatch(err.message, /\n/);
        return true;
      });
    });
  }
});
