/**
 * A PostgreSQL session-level advisory lock on a connection of its own, held for as long
 * as that connection lives: the basis of leader election between processes that share a
 * database. PostgreSQL releases the lock the moment the session ends (process killed,
 * connection dropped), which is what lets a standby take over.
 *
 * Key: the two-int4 form `(LOCK_CLASS, hashtext('<schema>:<name>'))`. Kysely's migration
 * lock uses the one-bigint form, which PostgreSQL keeps in a separate key space, so the
 * two can never collide; the schema in the key keeps deployments that share a server
 * (and test suites, one schema each) from competing with each other.
 */
import type pg from 'pg';

/** 'skmt' in ASCII: the advisory-lock class of every skymarket session lock. */
export const LOCK_CLASS = 0x736b6d74;

export class SessionLock {
  private lost = false;
  private listeners: Array<(reason: string) => void> = [];

  private constructor(
    private readonly client: pg.Client,
    /** `<schema>:<name>`, hashed by PostgreSQL into the lock's second key */
    readonly key: string,
  ) {
    // A connection that dies emits 'error' (and then 'end'); either way the lock is gone.
    client.on('error', (err) => this.markLost(`lock connection failed: ${err.message}`));
    client.on('end', () => this.markLost('lock connection closed'));
  }

  static async open(connect: () => Promise<pg.Client>, schema: string, name: string): Promise<SessionLock> {
    return new SessionLock(await connect(), `${schema}:${name}`);
  }

  /** Takes the lock if no other session holds it; true when this session holds it now. */
  async tryAcquire(): Promise<boolean> {
    const res = await this.client.query<{ locked: boolean }>('select pg_try_advisory_lock($1::int4, hashtext($2)) as locked', [
      LOCK_CLASS,
      this.key,
    ]);
    return res.rows[0]?.locked === true;
  }

  /** A round trip that confirms this session still holds the lock; throws when it does not. */
  async verify(): Promise<void> {
    if (this.lost) throw new Error('lock connection lost');
    const res = await this.client.query<{ held: boolean }>(
      `select exists (
         select 1 from pg_locks
         where locktype = 'advisory' and pid = pg_backend_pid() and granted
           and classid = ($1::int4)::oid and objid = (hashtext($2))::oid and objsubid = 2
       ) as held`,
      [LOCK_CLASS, this.key],
    );
    if (res.rows[0]?.held !== true) throw new Error('advisory lock no longer held');
  }

  /** Called once when the connection behind the lock is lost. */
  onLost(listener: (reason: string) => void): void {
    this.listeners.push(listener);
  }

  /** Ends the session, which releases the lock. */
  async close(): Promise<void> {
    this.listeners = [];
    this.lost = true;
    await this.client.end().catch(() => undefined);
  }

  private markLost(reason: string): void {
    if (this.lost) return;
    this.lost = true;
    for (const listener of this.listeners) listener(reason);
  }
}
