/**
 * kill -9 during alert delivery (issue 47): `skymarket serve` (role all, SQLite) against the
 * simulator, with bazaar alerts to a signed webhook on loopback whose first requests are never
 * answered. The process is killed while it waits on them. After a restart on the same database
 * every alert that was due is delivered, and a receiver honouring the idempotency key processes
 * each once (the resent request carries the same key).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { ManualClock } from '../../../src/clock.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { Store } from '../../../src/store/index.ts';
import { signedReceiver, type Receiver } from '../../helpers/alert-receivers.ts';
import { freePort } from '../../helpers/services.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';
import { waitFor } from '../../helpers/wait.ts';

const BIN = join(import.meta.dirname, '../../../bin/skymarket.js');
const DEADLINE_MS = 120_000;
const PRODUCTS = ['ENCHANTED_DIAMOND', 'ENCHANTED_IRON', 'ENCHANTED_GOLD'];

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> => waitFor(what, probe, { timeoutMs: DEADLINE_MS, intervalMs: 100 });

let sim: SimulatorHandle;
let dir: TempDir;
let hook: Receiver;
const children: ChildProcess[] = [];
/** requests the receiver holds unanswered (the process dies while it waits) */
let holding = true;

async function serve(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'all', '--host', '127.0.0.1', '--data-dir', dir.path, '--port', String(await freePort()), '--upstream-url', sim.url], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn', ALERT_WEBHOOK_PRIVATE_OK: 'true', INGEST_BAZAAR_SECONDS: '2', INGEST_AUCTIONS_SECONDS: '5' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.push(child);
  return child;
}

function deliveries(): Array<{ alert_key: string; status: string }> {
  const db = new SqliteDatabase(join(dir.path, 'skymarket.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT alert_key, status FROM alert_deliveries ORDER BY id').all() as Array<{ alert_key: string; status: string }>;
  } finally {
    db.close();
  }
}

before(async () => {
  sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, seed: 47, auctions: 300, backfillMs: 0, port: 0 }, { clock: new ManualClock(Date.now()), tickMs: 0 });
  dir = tempDir('alerts-kill');
  hook = await signedReceiver();
  const store = await Store.open({ dataDir: dir.path });
  const now = Date.now();
  const { account } = await store.accounts.create({ tier: 'premium', now });
  const target = await store.alerts.createTarget({ accountId: account.id, type: 1, target: hook.url, name: 'hook', when: 2, secret: 'kill-nine-secret', now });
  hook.secret = 'kill-nine-secret';
  for (const product of PRODUCTS) {
    await store.alerts.createSubscription({ accountId: account.id, spec: { kind: 'bazaar_price', product, side: 'buy', direction: 'above', threshold: 0.01 }, minIntervalMs: 3_600_000, targetIds: [target.id], listener: null, now });
  }
  await store.close();
});

after(async () => {
  holding = false;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await hook?.close();
  await sim?.close();
  dir?.remove();
});

it('every alert due when the process was killed is delivered after the restart, each processed once', async () => {
  // The receiver processes each request (its key is seen) but holds its answer while `holding`.
  hook.holdWhile = () => holding;
  const first = await serve();
  await until('the first delivery request', () => (hook.requests.length > 0 ? true : undefined));
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  const due = deliveries();
  assert.ok(due.length >= 1, 'alerts stored before the kill');
  assert.ok(due.every((d) => d.status === 'pending'), 'none marked delivered: no receiver answered');
  const keys = due.map((d) => d.alert_key);

  holding = false;
  await serve();
  await until('every alert due delivered', () => {
    const now = deliveries().filter((d) => keys.includes(d.alert_key));
    return now.length === keys.length && now.every((d) => d.status === 'delivered') ? true : undefined;
  });
  for (const key of keys) {
    assert.equal(hook.accepted.filter((r) => r.headers['idempotency-key'] === key).length, 1, `${key} processed once`);
  }
  assert.ok(hook.duplicates >= 1, 'the request cut by the kill was sent again with the same key, and dropped');
  assert.equal(hook.badSignatures, 0);
});
