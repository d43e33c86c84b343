/** `skymarket accounts|keys|partners`: the actions on both backends, and the real command against a live database. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  accountsCreate,
  accountsList,
  accountsRevoke,
  accountsSetTier,
  keysCreate,
  keysList,
  keysRevoke,
  partnersCreate,
  partnersList,
  partnersRevoke,
} from '../../../src/auth-admin.ts';
import { Store } from '../../../src/store/index.ts';
import { POSTGRES_TEST_URL, describeEachBackend, dropSchema, postgresUnavailable, uniqueSchema } from '../../helpers/databases.ts';
import { IN_CI } from '../../helpers/services.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;
const PLAYER = '01234567-89ab-cdef-0123-456789abcdef';
const last = (lines: string[]) => lines[lines.length - 1] as string;

describeEachBackend('auth admin commands', (fixture) => {
  it('accounts create prints the token alone on the last line; list, set-tier, revoke', async () => {
    const { store } = fixture();
    const out = await accountsCreate(store, { tier: 'premium', days: '30', name: 'alice' }, NOW);
    const token = last(out);
    assert.match(token, /^sma_[A-Za-z0-9_-]{43}$/);
    assert.match(out[0] as string, /created account (\d+) 'alice': Premium until 2026-12-22T12:00:00.000Z/);
    const id = Number(/account (\d+)/.exec(out[0] as string)?.[1]);
    assert.equal((await store.accounts.findByToken(token, NOW))?.tier, 'premium');

    assert.ok((await accountsList(store, NOW + 31 * DAY)).some((l) => l.includes(`account ${id} 'alice': Premium (expired: Free)`)));
    assert.match((await accountsSetTier(store, String(id), { tier: 'premium-plus' }, NOW))[0] as string, /Premium\+/);
    assert.equal((await store.accounts.findByToken(token, NOW + 1000 * DAY))?.tier, 'premium_plus');
    assert.match((await accountsRevoke(store, String(id), NOW))[0] as string, /revoked account/);
    assert.equal(await store.accounts.findByToken(token, NOW), null);
    await assert.rejects(accountsRevoke(store, String(id), NOW), /already revoked/);
    await assert.rejects(accountsRevoke(store, '987654', NOW), /no account 987654/);
    await assert.rejects(accountsCreate(store, { tier: 'gold' }, NOW), /tier must be one of free, starter_premium, premium, premium_plus/);
    await assert.rejects(accountsCreate(store, { tier: 'premium', days: '0' }, NOW), /--days must be/);
    await assert.rejects(accountsCreate(store, { tier: 'premium', days: 'ten' }, NOW), /--days must be/);
    await assert.rejects(accountsSetTier(store, 'abc', { tier: 'free' }, NOW), /account id must be a positive integer/);
  });

  it('keys create/list/revoke', async () => {
    const { store } = fixture();
    const out = await keysCreate(store, { player: PLAYER, profile: PLAYER.replace(/f$/, 'e') }, NOW);
    const key = last(out);
    assert.match(key, /^sk_/);
    assert.match(out[0] as string, /for player 0123456789abcdef0123456789abcdef profile 0123456789abcdef0123456789abcdee, expires 2027-05-21/);
    const id = /API key (\d+)/.exec(out[0] as string)?.[1] as string;
    assert.ok((await store.apiKeys.findByToken(key, NOW)) !== null);
    assert.match((await keysList(store, { player: PLAYER }, NOW))[0] as string, new RegExp(`key ${id}: .*expires`));
    await keysRevoke(store, id, NOW);
    assert.equal(await store.apiKeys.findByToken(key, NOW), null);
    assert.match((await keysList(store, { player: PLAYER }, NOW))[0] as string, /revoked/);
    await assert.rejects(keysRevoke(store, id, NOW), /no active API key/);
    await assert.rejects(keysCreate(store, { player: 'Notch' }, NOW), /--player must be a player uuid/);
    await assert.rejects(keysCreate(store, { player: PLAYER, profile: 'x' }, NOW), /--profile must be/);
  });

  it('partners create/list/revoke', async () => {
    const { store } = fixture();
    const out = await partnersCreate(store, { name: 'Acme' }, NOW);
    const token = last(out);
    const id = /partner (\d+)/.exec(out[0] as string)?.[1] as string;
    assert.equal((await store.partners.findByToken(token))?.name, 'Acme');
    assert.ok((await partnersList(store)).some((l) => l === `partner ${id} 'Acme'`));
    await partnersRevoke(store, id, NOW);
    assert.equal(await store.partners.findByToken(token), null);
    await assert.rejects(partnersCreate(store, { name: '  ' }, NOW), /--name must be/);
  });
});

const BIN = join(import.meta.dirname, '../../../bin/skymarket.js');
const cleanEnv = { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' };

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('skymarket accounts (real process)', () => {
  it('creates and revokes against the database a running server has open', async () => {
    const { path: dir, remove } = tempDir('cli-auth');
    const server = await Store.open({ dataDir: dir });
    try {
      const [created, bad] = await Promise.all([
        run(['accounts', 'create', '--tier', 'premium_plus', '--days', '7', '--data-dir', dir]),
        run(['accounts', 'create', '--tier', 'gold', '--data-dir', dir]),
      ]);
      assert.equal(created.code, 0, created.stderr);
      // It says which database it wrote to, first; the database existed, so no note about creating one.
      assert.equal(created.stdout.split('\n')[0], `database: sqlite:${join(dir, 'skymarket.db')}`);
      assert.doesNotMatch(created.stderr, /created one/);
      const token = created.stdout.trim().split('\n').pop() as string;
      assert.match(token, /^sma_[A-Za-z0-9_-]{43}$/);
      const account = await server.accounts.findByToken(token, Date.now());
      assert.equal(account?.tier, 'premium_plus');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /skymarket: tier must be one of/);
      const revoked = await run(['accounts', 'revoke', String(account?.id), '--data-dir', dir]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(revoked.stdout, `database: sqlite:${join(dir, 'skymarket.db')}\nrevoked account ${account?.id}: its token no longer works\n`);
      assert.equal(await server.accounts.findByToken(token, Date.now()), null);
    } finally {
      await server.close();
      remove();
    }
  });
});

describe('skymarket accounts says which database it wrote to', () => {
  it('a database the command had to create is pointed out: the token would not work on a server using another DATA_DIR', async () => {
    const parent = tempDir('cli-where');
    const dir = join(parent.path, 'not-the-servers-data');
    try {
      const first = await run(['accounts', 'create', '--tier', 'free', '--data-dir', dir]);
      assert.equal(first.code, 0, first.stderr);
      const lines = first.stdout.trim().split('\n');
      assert.equal(lines[0], `database: sqlite:${join(dir, 'skymarket.db')}`);
      assert.match(lines.at(-1)!, /^sma_/, 'the token is still alone on the last line');
      assert.ok(first.stderr.includes(`note: sqlite:${join(dir, 'skymarket.db')} held no skymarket database, so this command created one`), first.stderr);
      assert.match(first.stderr, /pass the server's --data-dir or --database-url/);
      // The second command finds the database the first one made.
      const listed = await run(['accounts', 'list', '--data-dir', dir]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stderr, '');
      assert.match(listed.stdout, /^database: sqlite:.*\naccount 1: Free\n$/);
    } finally {
      parent.remove();
    }
  });

  const skip = postgresUnavailable && !IN_CI ? `PostgreSQL unreachable (${postgresUnavailable})` : false;
  it('on PostgreSQL it prints the URL and schema without the password', { skip }, async () => {
    if (postgresUnavailable) throw new Error(`PostgreSQL is required under CI=true: ${postgresUnavailable}`);
    const schema = uniqueSchema('cliwhere');
    const url = new URL(POSTGRES_TEST_URL);
    url.password = 'hunter2'; // the test server trusts local connections, so any password works
    url.searchParams.set('schema', schema);
    try {
      const created = await run(['partners', 'create', '--name', 'Acme', '--database-url', url.toString()]);
      assert.equal(created.code, 0, created.stderr);
      const first = created.stdout.split('\n')[0]!;
      assert.match(first, new RegExp(`^database: postgres(ql)?://[^ ]*:\\*\\*\\*@[^ ]+ \\(schema ${schema}\\)$`));
      assert.doesNotMatch(created.stdout + created.stderr, /hunter2/);
      assert.match(created.stderr, /created one/, 'a new schema is a new database');
    } finally {
      await dropSchema(schema);
    }
  });
});
