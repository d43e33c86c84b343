/**
 * Leader election for work that must run in one process at a time (ingestion, background
 * jobs) when several processes share one PostgreSQL database. The leader holds a session
 * advisory lock (src/store/session-lock.ts) for as long as it works; the others are
 * standbys that try the lock every `retryMs` and take over when the leader's session ends.
 * A leader checks its lock on the same interval and stops working as soon as the lock
 * connection is lost, before it competes again. On SQLite there is one process by nature:
 * it leads at once.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from './logger.ts';
import type { Store } from './store/index.ts';
import type { SessionLock } from './store/session-lock.ts';

export type LeaderState = 'leader' | 'standby';
export type Duty = 'ingest' | 'jobs';

export interface LeadershipOptions {
  duty: Duty;
  store: Store;
  /** ms between lock attempts (standby) and lock checks (leader) */
  retryMs: number;
  logger: Logger;
  registry: Registry;
  /** this process became the leader: start the work */
  onElected(): void | Promise<void>;
  /** leadership ended (lock lost, or shutdown): stop the work, resolving once it has stopped */
  onDeposed(): Promise<void>;
}

const GAUGE = 'skymarket_leader';

function leaderGauge(registry: Registry): Gauge<'duty'> {
  const existing = registry.getSingleMetric(GAUGE);
  if (existing) return existing as Gauge<'duty'>;
  return new Gauge({
    name: GAUGE,
    help: 'Whether this process leads a duty (1 leader, 0 standby): ingest or jobs',
    labelNames: ['duty'],
    registers: [registry],
  });
}

const ATTEMPTS = 'skymarket_leader_lock_attempts_total';

/** How often a standby tried to take the lock: a takeover is counted in attempts, not seconds. */
function attemptsCounter(registry: Registry): Counter<'duty'> {
  const existing = registry.getSingleMetric(ATTEMPTS);
  if (existing) return existing as Counter<'duty'>;
  return new Counter({ name: ATTEMPTS, help: 'Times a standby tried to take the leader lock, per duty', labelNames: ['duty'], registers: [registry] });
}

export class Leadership {
  private current: LeaderState = 'standby';
  private lock: SessionLock | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private failing = false;
  /** standby and already said so (one log line per standby spell, not one per attempt) */
  private waiting = false;
  /** Every transition runs on this chain, one at a time: a lost lock never races an attempt. */
  private chain: Promise<void> = Promise.resolve();
  private readonly gauge: Gauge<'duty'>;
  private readonly attempts: Counter<'duty'>;
  private readonly logger: Logger;

  constructor(private readonly options: LeadershipOptions) {
    this.logger = options.logger.child({ component: 'leader', duty: options.duty });
    this.gauge = leaderGauge(options.registry);
    this.attempts = attemptsCounter(options.registry);
    this.gauge.set({ duty: options.duty }, 0);
  }

  get state(): LeaderState {
    return this.current;
  }

  start(): void {
    this.enqueue(() => this.attempt());
  }

  /** Stops the work if leading, then ends the lock session so a standby can take over. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.enqueue(async () => {
      if (this.current === 'leader') await this.resign('shutting down');
      await this.dropLock();
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(step).catch((err: unknown) => this.logger.error({ err }, 'leader election step failed'));
    return this.chain;
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.enqueue(() => this.attempt()), this.options.retryMs);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.current === 'leader') {
        // SQLite has no lock: its single process leads for good.
        if (!this.lock) return;
        await this.lock.verify();
      } else {
        if (!this.lock) {
          const lock = await this.options.store.openSessionLock(this.options.duty);
          if (!lock) {
            await this.elect('single-process database (SQLite)');
            return;
          }
          this.lock = lock;
          lock.onLost((reason) => void this.enqueue(() => this.lost(lock, reason)));
        }
        this.attempts.inc({ duty: this.options.duty });
        if (await this.lock.tryAcquire()) await this.elect(`holds advisory lock ${this.lock.key}`);
        else if (!this.waiting) {
          this.waiting = true;
          this.logger.info({ retryMs: this.options.retryMs }, `standby: another process leads ${this.options.duty}`);
        }
      }
      if (this.failing) this.logger.info('lock connection restored');
      this.failing = false;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (this.current === 'leader') await this.resign(reason);
      else if (!this.failing) this.logger.warn({ err: reason, retryInMs: this.options.retryMs }, 'cannot reach the leader lock; retrying');
      this.failing = true;
      await this.dropLock();
    }
    this.schedule();
  }

  /** The lock's connection ended on its own: stop leading (if we were), reconnect at the next attempt. */
  private async lost(lock: SessionLock, reason: string): Promise<void> {
    if (lock !== this.lock) return;
    if (this.current === 'leader') await this.resign(reason);
    await this.dropLock();
  }

  private async elect(why: string): Promise<void> {
    this.current = 'leader';
    this.waiting = false;
    this.gauge.set({ duty: this.options.duty }, 1);
    this.logger.info({ why }, `leader: ${this.options.duty} runs in this process`);
    await this.options.onElected();
  }

  private async resign(reason: string): Promise<void> {
    this.current = 'standby';
    this.gauge.set({ duty: this.options.duty }, 0);
    this.logger.warn({ reason }, `no longer leader: stopping ${this.options.duty}`);
    await this.options.onDeposed();
  }

  private async dropLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.close();
  }
}
