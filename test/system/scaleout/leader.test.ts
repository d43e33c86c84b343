/**
 * Leader election (src/leadership.ts) in one process: two stores on one PostgreSQL schema
 * stand for two processes. One leads, the other stands by; a leader whose lock session is
 * killed stops its work before anyone else leads; a graceful stop hands over; schemas do
 * not compete. On SQLite the single process leads at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Registry } from 'prom-client';
import { Leadership, type Duty } from '../../../src/leadership.ts';
import { createLogger } from '../../../src/logger.ts';
import { LOCK_CLASS } from '../../../src/store/session-lock.ts';
import { IN_CI, POSTGRES_TEST_URL, openTestStore, postgresUnavailable, uniqueSchema, dropSchema } from '../../helpers/databases.ts';
import { Store } from '../../../src/store/index.ts';
import { tmpdir } from 'node:os';
import { waitUntil } from '../../helpers/wait.ts';

const RETRY_MS = 150;
const logger = createLogger('silent');

/** A Leadership whose "work" is a flag, with a log of what happened to it. */
function candidate(store: Store, duty: Duty = 'ingest') {
  const events: string[] = [];
  const registry = new Registry();
  let working = false;
  const leadership = new Leadership({
    duty,
    store,
    retryMs: RETRY_MS,
    logger,
    registry,
    onElected: () => {
      working = true;
      events.push('elected');
    },
    onDeposed: async () => {
      await new Promise((r) => setTimeout(r, 20)); // work takes a moment to stop
      working = false;
      events.push('deposed');
    },
  });
  return { leadership, events, registry, working: () => working };
}

const until = (what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => waitUntil(condition, timeoutMs, what, 25);

/** How often `registry`'s Leadership tried to take the lock for `duty` as a standby. */
async function lockAttempts(registry: Registry, duty: Duty): Promise<number> {
  const metric = await registry.getSingleMetric('skymarket_leader_lock_attempts_total')?.get();
  return metric?.values.find((v) => v.labels.duty === duty)?.value ?? 0;
}

async function gauge(registry: Registry, duty: Duty): Promise<number | undefined> {
  const metric = await registry.getSingleMetric('skymarket_leader')?.get();
  return metric?.values.find((v) => v.labels.duty === duty)?.value;
}

describe('leader election [sqlite]', () => {
  it('leads at once: one process owns the database file', async () => {
    const opened = await openTestStore('sqlite');
    const a = candidate(opened.store);
    try {
      a.leadership.start();
      await until('sqlite leader', () => a.leadership.state === 'leader');
      assert.equal(await gauge(a.registry, 'ingest'), 1);
      await a.leadership.stop();
      assert.deepEqual(a.events, ['elected', 'deposed']);
      assert.equal(await gauge(a.registry, 'ingest'), 0);
    } finally {
      await opened.close();
    }
  });
});

const pgSkip = postgresUnavailable && !IN_CI ? `PostgreSQL unreachable at ${POSTGRES_TEST_URL} (${postgresUnavailable})` : false;
if (pgSkip) console.log(`# SKIP leader election [postgres]: ${pgSkip}`);

describe('leader election [postgres]', { skip: pgSkip }, () => {
  const schema = uniqueSchema('lead');
  const otherSchema = uniqueSchema('lead');
  let s1: Store;
  let s2: Store;
  let s3: Store;
  let admin: pg.Client;

  before(async () => {
    if (postgresUnavailable) throw new Error(`PostgreSQL is required under CI=true: ${postgresUnavailable}`);
    s1 = await Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: tmpdir(), schema });
    s2 = await Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: tmpdir(), schema });
    s3 = await Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: tmpdir(), schema: otherSchema });
    admin = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await admin.connect();
  });
  after(async () => {
    await Promise.all([s1?.close(), s2?.close(), s3?.close()]);
    await admin?.end();
    await dropSchema(schema);
    await dropSchema(otherSchema);
  });

  /** Backend pids holding the ingest lock of `schema`. */
  async function holders(duty: Duty = 'ingest'): Promise<number[]> {
    const res = await admin.query<{ pid: number }>(
      `select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 2
         and classid = ($1::int4)::oid and objid = (hashtext($2))::oid`,
      [LOCK_CLASS, `${schema}:${duty}`],
    );
    return res.rows.map((r) => r.pid);
  }

  it('one leads, one stands by; a killed lock session stops the leader; a graceful stop hands over', async () => {
    const a = candidate(s1);
    const b = candidate(s2);
    const other = candidate(s3);
    // Overlap is possible only while a dead session's leader has not noticed yet (PostgreSQL
    // frees the lock first); a graceful handover must never overlap.
    let both = 0;
    let watch: NodeJS.Timeout | undefined;
    try {
      a.leadership.start();
      await until('a leads', () => a.leadership.state === 'leader');
      b.leadership.start();
      other.leadership.start();
      // another schema is another deployment: it leads its own
      await until('other schema leads', () => other.leadership.state === 'leader');
      // b has tried the lock several times (counted, not slept for) and stays standby.
      await until('b tried the lock 3 times', async () => (await lockAttempts(b.registry, 'ingest')) >= 3);
      assert.equal(b.leadership.state, 'standby');
      assert.deepEqual(b.events, []);
      assert.equal(await gauge(b.registry, 'ingest'), 0);
      assert.equal(await gauge(a.registry, 'ingest'), 1);
      assert.equal((await holders()).length, 1);

      // The leader's session dies (as when its connection drops): it stops working, then someone leads.
      const [pid] = await holders();
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await until('a deposed', () => a.events.includes('deposed'));
      await until('a new leader', async () => (await holders()).length === 1 && [a, b].some((c) => c.leadership.state === 'leader'));
      const leader = a.leadership.state === 'leader' ? a : b;
      const standby = leader === a ? b : a;
      assert.equal(standby.leadership.state, 'standby');

      // Graceful stop: the leader's work stops, its lock is released, the standby takes over.
      watch = setInterval(() => {
        if (a.working() && b.working()) both++;
      }, 2);
      await leader.leadership.stop();
      assert.equal(leader.events.at(-1), 'deposed');
      await until('standby takes over', () => standby.leadership.state === 'leader');
      assert.equal(standby.events.at(-1), 'elected');
      assert.equal(both, 0, 'two candidates worked at the same time during a graceful handover');
    } finally {
      clearInterval(watch);
      await Promise.all([a.leadership.stop(), b.leadership.stop(), other.leadership.stop()]);
    }
    assert.deepEqual(await holders(), []);
  });

  it('ingest and jobs are separate locks', async () => {
    const ingest = candidate(s1, 'ingest');
    const jobs = candidate(s2, 'jobs');
    try {
      ingest.leadership.start();
      jobs.leadership.start();
      await until('both lead', () => ingest.leadership.state === 'leader' && jobs.leadership.state === 'leader');
      assert.equal((await holders('ingest')).length, 1);
      assert.equal((await holders('jobs')).length, 1);
    } finally {
      await Promise.all([ingest.leadership.stop(), jobs.leadership.stop()]);
    }
  });
});
