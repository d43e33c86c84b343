/**
 * IN_GAME alert targets (docs/alerts.md, docs/mod-protocol.md): the alerts of an account are sent
 * to its authenticated mod sessions in this process as `writeToChat` messages. The outbox
 * (alert_deliveries) holds them; this channel claims those of the accounts it has sessions for
 * (a lease, so two processes never send the same one at once and a crash mid-send lets it go
 * out again), sends each to every session of its account, and marks it delivered once one
 * session's socket took the frame (the ws send callback without an error). At least once: a
 * process that dies before marking it sends it again (after the lease) with the same `alert.id`.
 * While no session of the account is connected the delivery waits; it is looked for when a session
 * authenticates and every `pollMs` while any is connected; the jobs leader fails it after
 * IN_GAME_HOLD_MS (24 h).
 */
import type { Clock } from '../clock.ts';
import { chatLine, IN_GAME_LEASE_MS, TARGET_TYPES, type AlertBody } from '../domain/alerts/targets.ts';
import type { AlertDelivery } from '../domain/alerts/records.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';

/** A session the channel writes to: resolves once the frame went to the socket, rejects when it could not. */
export interface AlertSink {
  push(message: Record<string, unknown>): Promise<void>;
}

export interface ModAlertOptions {
  store: Pick<Store, 'alerts'>;
  clock: Clock;
  logger: Logger;
  /** ms between looks at the outbox while sessions are connected (default 1000) */
  pollMs?: number;
  /** deliveries claimed per look */
  batch?: number;
}

/** The message a mod gets for one alert: the established mod's chat line, and the alert itself (its `id` the idempotency key). */
export function alertMessage(body: AlertBody): Record<string, unknown> {
  return { type: 'writeToChat', data: chatLine(body), alert: body };
}

export class ModAlertChannel {
  private readonly sessions = new Map<number, Set<AlertSink>>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** deliveries marked delivered by this channel (tests, the log) */
  delivered = 0;

  constructor(private readonly o: ModAlertOptions) {}

  /** A session of `accountId` authenticated: it gets the account's alerts, held ones at once. Answers the removal. */
  add(accountId: number, sink: AlertSink): () => void {
    let set = this.sessions.get(accountId);
    if (!set) this.sessions.set(accountId, (set = new Set()));
    set.add(sink);
    this.schedule();
    this.nudge();
    return () => {
      const s = this.sessions.get(accountId);
      if (!s) return;
      s.delete(sink);
      if (s.size === 0) this.sessions.delete(accountId);
      if (this.sessions.size === 0) this.unschedule();
    };
  }

  /** Looks at the outbox now (a session came, or alerts were stored in this process). */
  nudge(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.flush()
      .catch((err: unknown) => this.o.logger.error({ err }, 'mod alerts: reading the outbox failed; retrying at the next look'))
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.closed) {
          this.again = false;
          this.nudge();
        }
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unschedule();
    await this.running;
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.nudge(), this.o.pollMs ?? 1000);
    this.timer.unref();
  }

  private unschedule(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async flush(): Promise<void> {
    const { store, clock } = this.o;
    for (;;) {
      const accounts = [...this.sessions.keys()];
      if (accounts.length === 0 || this.closed) return;
      const claimed = await store.alerts.claimHeld(TARGET_TYPES.IN_GAME, accounts, clock.now(), IN_GAME_LEASE_MS, this.o.batch ?? 50);
      if (claimed.length === 0) return;
      for (const d of claimed) await this.deliver(d);
      if (claimed.length < (this.o.batch ?? 50)) return;
    }
  }

  private async deliver(d: AlertDelivery): Promise<void> {
    const { store, clock, logger } = this.o;
    const sinks = [...(this.sessions.get(d.accountId) ?? [])];
    let body: AlertBody;
    try {
      body = JSON.parse(d.body) as AlertBody;
    } catch {
      await store.alerts.attemptFailed(d, 'the stored alert is not JSON', null, clock.now());
      return;
    }
    const message = alertMessage(body);
    const results = await Promise.allSettled(sinks.map((s) => s.push(message)));
    if (results.some((r) => r.status === 'fulfilled')) {
      await store.alerts.delivered(d, clock.now());
      this.delivered++;
    } else {
      // Every session went away meanwhile: due again, for the next session.
      await store.alerts.release(d, clock.now());
      logger.debug({ delivery: d.id }, 'mod alerts: no session took the alert; held');
    }
  }
}
