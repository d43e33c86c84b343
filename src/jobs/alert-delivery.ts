/**
 * Alert delivery (issue 47): the one worker, in the jobs leader, that sends what the evaluator
 * stored in the outbox (alert_deliveries). At least once: a delivery is marked delivered only after
 * its receiver answered 2xx, so a process killed mid-request sends it again after the restart, with
 * the same idempotency key. A failed attempt is retried after RETRY_DELAYS_MS; after the last its
 * delivery fails and its target is marked failing with the reason, which the owner sees
 * (GET /api/notifications/targets).
 *
 * Targets: DISCORD_WEBHOOK (the export allow-list of Discord hosts, an embed), WEBHOOK (HTTPS,
 * signed with the target's secret; the address it resolves to must be public: checked when the
 * connection is made, so a DNS answer that changes after a check cannot point it inward; redirects
 * are never followed), LIVE_FEED (an `alert` event on the live feed, published to the hub: over
 * Redis every process's connections of the account get it; delivered once published). IN_GAME
 * deliveries are not sent here but by the mod channel of the process that holds the account's
 * sessions (mod/alerts.ts); this worker only fails those held past IN_GAME_HOLD_MS (`expireHeld`).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, fetch, type Dispatcher } from 'undici';
import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import { isBlockedAddress } from '../domain/alerts/addresses.ts';
import { discordMessage, IDEMPOTENCY_HEADER, IN_GAME_HOLD_MS, nextAttemptAt, signature, SIGNATURE_HEADER, TARGET_TYPES, TIMESTAMP_HEADER, type AlertBody } from '../domain/alerts/targets.ts';
import type { DraftEvent } from '../domain/stream-events.ts';
import { allowedWebhook } from '../domain/webhooks.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { AlertDelivery, AlertTarget } from '../domain/alerts/records.ts';

export interface AlertDeliveryOptions {
  store: Pick<Store, 'alerts'>;
  clock: Clock;
  logger: Logger;
  /** EXPORT_WEBHOOK_HOSTS: where Discord webhooks may point */
  discordHosts: readonly string[];
  /**
   * The test seam (ALERT_WEBHOOK_PRIVATE_OK): generic webhooks may use http and private addresses,
   * so tests and benches reach a receiver on loopback. Never set in production.
   */
  allowPrivate?: boolean;
  /** ms between looks at the outbox when nothing nudged the worker (another process evaluates) */
  pollMs?: number;
  timeoutMs?: number;
  /** deliveries sent at once */
  concurrency?: number;
  registry?: Registry;
  /** publishes events on the live feed (the hub's publish; over Redis when shared); none: LIVE_FEED deliveries wait and retry */
  publish?: ((events: DraftEvent[]) => Promise<void>) | undefined;
}

/** A failure that retrying cannot fix (a refused target): the delivery fails at once. */
class Permanent extends Error {}

/** A DNS lookup that refuses blocked addresses: the check is made for the connection itself. */
function publicOnlyLookup(hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad || list.length === 0) {
      const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to a private or reserved address (${bad?.address ?? 'none'}): refused`);
      e.code = 'EADDRBLOCKED';
      return callback(e, []);
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}

function counter(registry: Registry | undefined): Counter<'outcome'> | undefined {
  if (!registry) return undefined;
  const name = 'skymarket_alert_deliveries_total';
  return (
    (registry.getSingleMetric(name) as Counter<'outcome'> | undefined) ??
    new Counter({ name, help: 'Alert delivery attempts by outcome: delivered, retry, failed', labelNames: ['outcome'], registers: [registry] })
  );
}

export class AlertDeliveryWorker {
  private readonly dispatcher: Dispatcher;
  private readonly attempts: Counter<'outcome'> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** called as each delivery's request leaves the process (the latency bench) */
  onSent?: (delivery: AlertDelivery) => void;

  constructor(private readonly options: AlertDeliveryOptions) {
    this.dispatcher = new Agent({
      connect: options.allowPrivate ? {} : { lookup: publicOnlyLookup as never },
      connections: 8,
    });
    this.attempts = counter(options.registry);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.nudge();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.dispatcher.close();
  }

  /** Something was enqueued (the evaluator in this process): look now rather than at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.nudge();
        return;
      }
      this.timer = setTimeout(() => this.nudge(), this.options.pollMs ?? 500);
      this.timer.unref();
    });
  }

  private async loop(): Promise<void> {
    try {
      while (!this.stopped && (await this.runOnce()) > 0);
    } catch (err) {
      this.options.logger.error({ err }, 'alert delivery failed to read its outbox; retrying');
    }
  }

  /** Sends every delivery due now (a batch at a time); answers how many were attempted. */
  async runOnce(): Promise<number> {
    const { store, clock } = this.options;
    const due = await store.alerts.due(clock.now(), 50, [TARGET_TYPES.IN_GAME]);
    if (due.length === 0) return 0;
    const targets = await store.alerts.targetsByIds([...new Set(due.map((d) => d.targetId))]);
    const width = this.options.concurrency ?? 8;
    for (let i = 0; i < due.length; i += width) {
      await Promise.all(due.slice(i, i + width).map((d) => this.attempt(d, targets.get(d.targetId))));
    }
    return due.length;
  }

  private async attempt(d: AlertDelivery, target: AlertTarget | undefined): Promise<void> {
    const { store, clock, logger } = this.options;
    try {
      if (!target) throw new Permanent('the target was deleted');
      await this.send(d, target);
      await store.alerts.delivered(d, clock.now());
      this.attempts?.inc({ outcome: 'delivered' });
    } catch (err) {
      const message = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      const retryAt = err instanceof Permanent ? null : nextAttemptAt(d.attempts + 1, clock.now());
      await store.alerts.attemptFailed(d, message, retryAt, clock.now());
      this.attempts?.inc({ outcome: retryAt === null ? 'failed' : 'retry' });
      logger.warn({ delivery: d.id, target: d.targetId, attempt: d.attempts + 1, err: message, retry: retryAt !== null }, retryAt === null ? 'alert delivery failed; target marked failing' : 'alert delivery failed; will retry');
    }
  }

  /** Fails the IN_GAME deliveries no mod session took within IN_GAME_HOLD_MS; answers how many. */
  expireHeld(): Promise<number> {
    const hours = IN_GAME_HOLD_MS / 3_600_000;
    return this.options.store.alerts.expireHeld(TARGET_TYPES.IN_GAME, this.options.clock.now() - IN_GAME_HOLD_MS, `no mod session of the account connected within ${hours} hours`);
  }

  /** One POST (or, LIVE_FEED, one publish); resolves on 2xx, throws otherwise (Permanent when retrying cannot help). */
  async send(d: Pick<AlertDelivery, 'alertKey' | 'body' | 'accountId'>, target: Pick<AlertTarget, 'type' | 'target' | 'secret'>): Promise<void> {
    const { clock } = this.options;
    const body = JSON.parse(d.body) as AlertBody;
    if (target.type === TARGET_TYPES.LIVE_FEED) {
      const publish = this.options.publish;
      if (!publish) throw new Error('this process has no live feed to publish to (role jobs without REDIS_URL)');
      this.onSent?.(d as AlertDelivery);
      await publish([{ topic: 'alert', time: clock.now(), accountId: d.accountId, alert: body }]);
      return;
    }
    let url: URL;
    let payload: string;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'skymarket-alerts', [IDEMPOTENCY_HEADER]: d.alertKey };
    if (target.type === TARGET_TYPES.DISCORD_WEBHOOK) {
      const allowed = allowedWebhook(target.target, this.options.discordHosts);
      if (!allowed) throw new Permanent('the Discord webhook is not on the allow-list (EXPORT_WEBHOOK_HOSTS)');
      url = allowed;
      payload = JSON.stringify(discordMessage(body));
    } else if (target.type === TARGET_TYPES.WEBHOOK) {
      try {
        url = new URL(target.target);
      } catch {
        throw new Permanent('the webhook URL is malformed');
      }
      if (url.protocol !== 'https:' && !(this.options.allowPrivate && url.protocol === 'http:')) throw new Permanent('webhooks must use https');
      if (url.username || url.password) throw new Permanent('webhook URLs may not carry credentials');
      payload = JSON.stringify(body);
      const timestamp = String(Math.floor(clock.now() / 1000));
      headers[TIMESTAMP_HEADER] = timestamp;
      if (target.secret) headers[SIGNATURE_HEADER] = signature(target.secret, timestamp, payload);
    } else {
      throw new Permanent(`target type ${target.type} is not delivered by skymarket`);
    }
    this.onSent?.(d as AlertDelivery);
    let res: Awaited<ReturnType<typeof fetch>>;
    try {
      res = await fetch(url, { method: 'POST', body: payload, headers, redirect: 'manual', dispatcher: this.dispatcher, signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000) });
    } catch (err) {
      const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
      if (cause?.code === 'EADDRBLOCKED') throw new Permanent(cause.message);
      throw err;
    }
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return;
    const why = `the receiver answered ${res.status}`;
    // A redirect or a refusal of the request itself will answer the same next time.
    if ((res.status >= 300 && res.status < 400) || res.status === 400 || res.status === 401 || res.status === 403 || res.status === 404 || res.status === 410) throw new Permanent(why);
    throw new Error(why);
  }
}
