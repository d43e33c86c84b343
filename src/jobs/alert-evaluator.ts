/**
 * Alert evaluation (issue 47): in the process that writes the market (role all, or the ingest
 * leader), on the live feed's events of every committed change (market/events.ts), because that
 * process has each change first, once and in order, with the lowest-BIN moves already derived;
 * no other process needs to hold the subscriptions. Each batch is matched against the alert index
 * (domain/alerts/index.ts) and every alert due is stored in the outbox for each of its targets, in
 * one statement, before the delivery worker (jobs leader) is nudged. The evaluator holds nothing that a
 * restart would lose except each subscription's last firing (its rate limit) and the bazaar
 * conditions (an alert whose condition still holds after a restart fires once more).
 */
import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import { AlertIndex, type AlertDraft, type EvaluationCounts, type MedianSource, type ValueSource } from '../domain/alerts/index.ts';
import { HourlyMedians } from '../domain/alerts/medians.ts';
import { ALERT_LIMITS, alertBody, NOTIFY_WHEN } from '../domain/alerts/targets.ts';
import type { DraftEvent } from '../domain/stream-events.ts';
import { effectiveTier, type Tier } from '../domain/tiers.ts';
import type { Logger } from '../logger.ts';
import { BatchQueue, type BatchEmitter } from '../market/batch-queue.ts';
import type { Store } from '../store/index.ts';
import type { AlertRoute, AlertTarget, NewDelivery, StoredSubscription } from '../domain/alerts/records.ts';
import type { AlertKind } from '../domain/alerts/spec.ts';

const HOUR = 3_600_000;

export interface AlertEvaluatorOptions {
  store: Pick<Store, 'alerts' | 'accounts'>;
  clock: Clock;
  logger: Logger;
  /** the site's address for links in alerts (ALERT_LINK_BASE); empty: no links */
  linkBase: string;
  /** the valuation (underpriced alerts); none wired: those subscriptions never fire */
  values?: ValueSource;
  /**
   * Only subscriptions of these kinds (default all). An `api` replica evaluates the underpriced ones, where the
   * valuation lives; the process that writes the market evaluates the rest (docs/alerts.md).
   */
  kinds?: ReadonlySet<AlertKind>;
  medians?: MedianSource & { observe?(events: readonly DraftEvent[]): void };
  /** ms between checks that the subscriptions changed (another process's API wrote them) */
  reloadMs?: number;
  /** called after deliveries were stored (the worker in this process sends them now) */
  onEnqueued?: () => void;
  registry?: Registry;
}

/** Whether a route's source pattern names subscription `id` (a bounded pattern, checked when stored). */
export function routeMatches(route: Pick<AlertRoute, 'sourceType' | 'sourceRegex'>, id: number): boolean {
  if (route.sourceType !== 'Subscription' && route.sourceType !== 'Any') return false;
  if (!route.sourceRegex) return true;
  try {
    return new RegExp(`^(?:${route.sourceRegex})$`).test(String(id));
  } catch {
    return false;
  }
}

/** The targets an alert of `sub` goes to (docs/alerts.md, "Where an alert goes"). */
export function targetsOf(sub: Pick<StoredSubscription, 'id' | 'targetIds'>, targets: readonly AlertTarget[], routes: readonly AlertRoute[]): AlertTarget[] {
  const live = targets.filter((t) => t.when !== NOTIFY_WHEN.NEVER);
  if (sub.targetIds !== null) {
    const wanted = new Set(sub.targetIds);
    return live.filter((t) => wanted.has(t.id));
  }
  const linked = new Set<number>();
  for (const r of routes) if (routeMatches(r, sub.id)) for (const l of r.targets) if (!l.isDisabled) linked.add(l.id);
  if (linked.size > 0) return live.filter((t) => linked.has(t.id));
  const always = live.filter((t) => t.when === NOTIFY_WHEN.ALWAYS);
  // AFTER_FAIL targets stand in while every ALWAYS target is failing.
  if (always.length > 0 && always.some((t) => t.failingSince === null)) return always;
  return [...always, ...live.filter((t) => t.when === NOTIFY_WHEN.AFTER_FAIL)];
}

interface AccountState {
  tier: Tier;
  targets: AlertTarget[];
  routes: AlertRoute[];
  hour: number;
  /** alerts stored this hour; undefined until read from the store */
  sent: number | undefined;
}

export class AlertEvaluator {
  readonly index = new AlertIndex();
  readonly medians: MedianSource & { observe?(events: readonly DraftEvent[]): void };
  private subscriptions = new Map<number, StoredSubscription>();
  private accounts = new Map<number, AccountState>();
  private version: string | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private loadedAt = Number.NEGATIVE_INFINITY;
  private readonly batches = new BatchQueue();
  private readonly counters: { alerts?: Counter<'outcome'> } = {};
  /** totals since start, for tests and the bench */
  readonly totals = { batches: 0, alerts: 0, stored: 0, overLimit: 0, rateLimited: 0 };

  constructor(private readonly options: AlertEvaluatorOptions) {
    this.medians = options.medians ?? new HourlyMedians();
    if (options.registry) {
      const name = 'skymarket_alerts_total';
      this.counters.alerts =
        (options.registry.getSingleMetric(name) as Counter<'outcome'> | undefined) ??
        new Counter({ name, help: 'Alerts the evaluator found, by outcome: stored, rate_limited (subscription interval), over_limit (tier per hour)', labelNames: ['outcome'], registers: [options.registry] });
    }
  }

  /** Follows an emitter of live-feed batches (market/events.ts); the batches are handled one at a time, in order. */
  attach(emitter: BatchEmitter): void {
    this.batches.attach(emitter, (batch) => {
      this.batches.run(() => this.handle(batch)).catch((err: unknown) => this.options.logger.error({ err }, 'alert evaluation failed for a batch; its alerts are lost'));
    });
  }

  stop(): Promise<void> {
    return this.batches.stop();
  }

  /** Resolves once every batch received so far was handled. */
  idle(): Promise<void> {
    return this.batches.idle();
  }

  /** Loads the subscriptions, targets, routes and tiers when they changed (at most every reloadMs). */
  async refresh(force = false): Promise<void> {
    const now = this.options.clock.now();
    if (!force && now - this.checkedAt < (this.options.reloadMs ?? 1000)) return;
    this.checkedAt = now;
    const { alerts, accounts } = this.options.store;
    const version = await alerts.version();
    // The fingerprint sees rows added and removed; a target changed in place (its `when`, failing or not) is
    // picked up by a full reload at least once a minute.
    if (!force && version === this.version && now - this.loadedAt < 60_000) return;
    this.loadedAt = now;
    const [subs, targets, routes] = await Promise.all([alerts.allSubscriptions(), alerts.allTargets(), alerts.routes()]);
    const states = new Map<number, AccountState>();
    for (const sub of subs) {
      if (states.has(sub.accountId)) continue;
      const account = await accounts.get(sub.accountId);
      if (!account || account.revokedAt !== null) continue;
      const old = this.accounts.get(sub.accountId);
      states.set(sub.accountId, { tier: effectiveTier(account.tier, account.tierExpiresAt, now), targets: [], routes: [], hour: old?.hour ?? 0, sent: old?.sent });
    }
    for (const t of targets) states.get(t.accountId)?.targets.push(t);
    for (const r of routes) states.get(r.accountId)?.routes.push(r);
    // An account over its tier's subscription limit (a lapsed tier) keeps its oldest subscriptions.
    const kept: StoredSubscription[] = [];
    const perAccount = new Map<number, number>();
    for (const sub of subs) {
      const state = states.get(sub.accountId);
      if (!state) continue;
      // Counted against the tier's limit whatever this evaluator handles, so every process keeps the same ones.
      const n = (perAccount.get(sub.accountId) ?? 0) + 1;
      perAccount.set(sub.accountId, n);
      if (n <= ALERT_LIMITS[state.tier].subscriptions && (this.options.kinds?.has(sub.spec.kind) ?? true)) kept.push(sub);
    }
    this.subscriptions = new Map(kept.map((s) => [s.id, s]));
    this.accounts = states;
    this.index.replace(kept);
    this.version = version;
  }

  /** Evaluates one batch and stores its alerts; answers the alerts stored. */
  async handle(batch: readonly DraftEvent[]): Promise<AlertDraft[]> {
    await this.refresh();
    this.totals.batches++;
    this.medians.observe?.(batch);
    if (this.index.size === 0) return [];
    await this.options.values?.prepare?.(batch);
    const now = this.options.clock.now();
    const counts: EvaluationCounts = { checked: 0, matched: 0, rateLimited: 0 };
    const drafts = this.index.evaluate(batch, { now, medians: this.medians, ...(this.options.values ? { values: this.options.values } : {}) }, counts);
    this.totals.rateLimited += counts.rateLimited;
    this.counters.alerts?.inc({ outcome: 'rate_limited' }, counts.rateLimited);
    if (drafts.length === 0) return [];
    const rows: NewDelivery[] = [];
    const stored: AlertDraft[] = [];
    for (const draft of drafts) {
      const sub = this.subscriptions.get(draft.subscriptionId);
      const state = this.accounts.get(draft.accountId);
      if (!sub || !state) continue;
      if (!(await this.withinHourlyLimit(draft.accountId, state, now))) {
        this.totals.overLimit++;
        this.counters.alerts?.inc({ outcome: 'over_limit' });
        continue;
      }
      const body = JSON.stringify(alertBody(draft, this.options.linkBase));
      for (const target of targetsOf(sub, state.targets, state.routes)) {
        rows.push({ alertKey: draft.key, targetId: target.id, accountId: draft.accountId, subscriptionId: draft.subscriptionId, body });
      }
      stored.push(draft);
    }
    this.totals.alerts += stored.length;
    this.counters.alerts?.inc({ outcome: 'stored' }, stored.length);
    if (rows.length > 0) {
      this.totals.stored += await this.options.store.alerts.enqueue(rows, now);
      this.options.onEnqueued?.();
    }
    return stored;
  }

  private async withinHourlyLimit(accountId: number, state: AccountState, now: number): Promise<boolean> {
    const hour = Math.floor(now / HOUR);
    if (state.hour !== hour || state.sent === undefined) {
      state.hour = hour;
      state.sent = await this.options.store.alerts.countSince(accountId, hour * HOUR);
    }
    if (state.sent >= ALERT_LIMITS[state.tier].perHour) return false;
    state.sent++;
    return true;
  }
}
