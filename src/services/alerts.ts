/**
 * Alerts for an account (issue 47): its notification targets, subscriptions (skymarket's alert
 * specs, and the established listeners read as specs), the routes between them (the established
 * PublicSubscription) and its deliveries. Limits per tier (domain/alerts/targets.ts ALERT_LIMITS).
 * Transport-free: refusals are AlertRefusal (status, slug), shaped by the API.
 */
import { randomBytes } from 'node:crypto';
import { isBlockedAddress } from '../domain/alerts/addresses.ts';
import { listenerSpec, type ListenerInput } from '../domain/alerts/established.ts';
import { AlertSpecError, parseAlertSpec, parseIntervalMs, type AlertSpec } from '../domain/alerts/spec.ts';
import { ADDRESSLESS_TYPES, ALERT_LIMITS, NOTIFY_WHEN, TARGET_TYPES, targetProblem } from '../domain/alerts/targets.ts';
import type { AccountIdentity } from '../domain/identities.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../store/index.ts';
import type { AlertDelivery, AlertRoute, AlertTarget, StoredSubscription, TargetLinkRow } from '../domain/alerts/records.ts';

export class AlertRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 404,
    readonly slug: string,
    message: string,
  ) {
    super(message);
  }
}

export interface TargetInput {
  type: number;
  /** the URL; ignored (stored empty) for IN_GAME and LIVE_FEED, whose address is the account */
  target: string;
  name: string | null;
  when: number;
}

export interface RouteInput {
  sourceType: string;
  sourceSubIdRegex: string | null;
  targets: Array<{ id: number; name?: string | null; priority?: number; isDisabled?: boolean }>;
}

/** A source pattern is digits and a few operators, short: matched against subscription ids only. */
const ROUTE_PATTERN = /^[0-9|.*+?()^$]{0,100}$/;
const ROUTE_SOURCES = ['Any', 'Subscription'];

export interface AlertsServiceOptions {
  store: Pick<Store, 'alerts' | 'bazaar'>;
  clock: Clock;
  /** EXPORT_WEBHOOK_HOSTS */
  discordHosts: readonly string[];
  /** the test seam (ALERT_WEBHOOK_PRIVATE_OK) */
  allowPrivate: boolean;
  /** tag or alias → canonical tag (the catalog), undefined for an unknown one */
  resolveTag?: (raw: string) => string | undefined;
}

export class AlertsService {
  constructor(private readonly o: AlertsServiceOptions) {}

  // Targets ---------------------------------------------------------------

  targets(account: AccountIdentity): Promise<AlertTarget[]> {
    return this.o.store.alerts.targets(account.id);
  }

  /** The target as stored (an addressless type's `target` is empty); refused with a problem when it cannot be. */
  private checkTarget(input: TargetInput): TargetInput {
    const t = ADDRESSLESS_TYPES.includes(input.type) ? { ...input, target: '' } : input;
    if (![NOTIFY_WHEN.NEVER, NOTIFY_WHEN.AFTER_FAIL, NOTIFY_WHEN.ALWAYS].includes(t.when as 0)) throw new AlertRefusal(400, 'invalid_target', '`when` has to be 0 (NEVER), 1 (AFTER_FAIL) or 2 (ALWAYS).');
    const problem = targetProblem(t.type, t.target, this.o.discordHosts, this.o.allowPrivate, isBlockedAddress);
    if (problem) throw new AlertRefusal(400, t.type === TARGET_TYPES.DISCORD_WEBHOOK ? 'webhook_not_allowed' : 'invalid_target', problem);
    return t;
  }

  /** Stores a target; a WEBHOOK target gets a signing secret, answered here once. */
  async createTarget(account: AccountIdentity, input: TargetInput): Promise<AlertTarget> {
    const t = this.checkTarget(input);
    const limit = ALERT_LIMITS[account.tier].targets;
    if ((await this.o.store.alerts.countTargets(account.id)) >= limit) throw new AlertRefusal(403, 'alert_limit', `Your tier allows ${limit} notification targets.`);
    const secret = t.type === TARGET_TYPES.WEBHOOK ? randomBytes(24).toString('base64url') : null;
    return this.o.store.alerts.createTarget({ accountId: account.id, ...t, secret, now: this.o.clock.now() });
  }

  async updateTarget(account: AccountIdentity, id: number, input: TargetInput): Promise<void> {
    const t = this.checkTarget(input);
    if (!(await this.o.store.alerts.updateTarget(id, account.id, t))) throw new AlertRefusal(404, 'target_not_found', `You have no notification target ${id}.`);
  }

  /** Refused while a subscription or a listener of the owner still names the target, as the established service refuses it. */
  async deleteTarget(account: AccountIdentity, id: number): Promise<void> {
    const { alerts } = this.o.store;
    const [subs, routes] = await Promise.all([alerts.subscriptions(account.id), alerts.routes(account.id)]);
    const usedBy = [...subs.filter((s) => s.targetIds?.includes(id)).map((s) => `subscription ${s.id}`), ...routes.filter((r) => r.targets.some((t) => t.id === id)).map((r) => `listener ${r.id}`)];
    if (usedBy.length > 0) throw new AlertRefusal(400, 'subscription_depends', `Notification target ${id} is still used by ${usedBy.join(', ')}: remove it there first.`);
    if (!(await alerts.deleteTarget(id, account.id))) throw new AlertRefusal(404, 'target_not_found', `You have no notification target ${id}.`);
  }

  /** Queues a test alert to the owner's target; the delivery worker sends it like any other. */
  async testTarget(account: AccountIdentity, id: number): Promise<string> {
    const target = await this.o.store.alerts.target(id);
    if (!target || target.accountId !== account.id) throw new AlertRefusal(404, 'target_not_found', `You have no notification target ${id}.`);
    const now = this.o.clock.now();
    const key = `test:${id}:${now}`;
    const body = {
      id: key,
      subscriptionId: 0,
      kind: 'listing',
      at: new Date(now).toISOString(),
      title: 'Test alert from skymarket: this target works',
      tag: 'TEST',
      itemName: null,
      price: 0,
      reference: null,
      auctionUuid: null,
      link: null,
      test: true,
    };
    await this.o.store.alerts.enqueue([{ alertKey: key, targetId: id, accountId: account.id, subscriptionId: null, body: JSON.stringify(body) }], now);
    return key;
  }

  // Subscriptions ---------------------------------------------------------

  private async checkTargets(account: AccountIdentity, ids: number[] | null): Promise<void> {
    if (ids === null) return;
    if (ids.length > 20) throw new AlertRefusal(400, 'invalid_alert', 'At most 20 targets per subscription.');
    const mine = new Set((await this.o.store.alerts.targets(account.id)).map((t) => t.id));
    const foreign = ids.find((id) => !mine.has(id));
    if (foreign !== undefined) throw new AlertRefusal(400, 'target_not_found', `You have no notification target ${foreign}.`);
  }

  private resolve(spec: AlertSpec): AlertSpec {
    if ('tag' in spec && this.o.resolveTag) return { ...spec, tag: this.o.resolveTag(spec.tag) ?? spec.tag };
    return spec;
  }

  private async assertCapacity(account: AccountIdentity): Promise<void> {
    const limit = ALERT_LIMITS[account.tier].subscriptions;
    if ((await this.o.store.alerts.countSubscriptions(account.id)) >= limit) throw new AlertRefusal(403, 'alert_limit', `Your tier allows ${limit} alert subscriptions.`);
  }

  /** skymarket's own alert: a spec (domain/alerts/spec.ts), a minimum interval, optional explicit targets. */
  async createAlert(account: AccountIdentity, input: { spec: unknown; minIntervalSeconds?: number; targets?: number[] | null }): Promise<StoredSubscription> {
    const spec = this.resolve(refusing(() => parseAlertSpec(input.spec)));
    const minIntervalMs = refusing(() => parseIntervalMs(input.minIntervalSeconds));
    const targetIds = input.targets === undefined || input.targets === null ? null : [...new Set(input.targets)];
    await this.checkTargets(account, targetIds);
    await this.assertCapacity(account);
    return this.o.store.alerts.createSubscription({ accountId: account.id, spec, minIntervalMs, targetIds, listener: null, now: this.o.clock.now() });
  }

  alerts(account: AccountIdentity): Promise<StoredSubscription[]> {
    return this.o.store.alerts.subscriptions(account.id);
  }

  async deleteAlert(account: AccountIdentity, id: number): Promise<void> {
    if (!(await this.o.store.alerts.deleteSubscription(id, account.id))) throw new AlertRefusal(404, 'alert_not_found', `You have no alert subscription ${id}.`);
  }

  /** An established listener, stored as the spec it means; its deliveries follow the routes. */
  async createListener(account: AccountIdentity, l: ListenerInput): Promise<StoredSubscription> {
    const topic = l.topicId.toUpperCase();
    const isProduct = /^[A-Z0-9_:]{1,64}$/.test(topic) && (await this.o.store.bazaar.latestBuyPrices([topic])).has(topic);
    const spec = this.resolve(refusing(() => listenerSpec(l, isProduct)));
    await this.assertCapacity(account);
    const stored = await this.o.store.alerts.createSubscription({ accountId: account.id, spec, minIntervalMs: 60_000, targetIds: null, listener: { topicId: l.topicId, price: l.price, type: l.type, filter: l.filter }, now: this.o.clock.now() });
    return stored;
  }

  async listeners(account: AccountIdentity): Promise<StoredSubscription[]> {
    return (await this.o.store.alerts.subscriptions(account.id)).filter((s) => s.listener !== null);
  }

  // Routes (PublicSubscription) -------------------------------------------

  private async checkRoute(account: AccountIdentity, r: RouteInput): Promise<TargetLinkRow[]> {
    if (!ROUTE_SOURCES.includes(r.sourceType)) throw new AlertRefusal(400, 'invalid_subscription', `skymarket routes alerts of sourceType ${ROUTE_SOURCES.join(' or ')}.`);
    if (r.sourceSubIdRegex !== null && !ROUTE_PATTERN.test(r.sourceSubIdRegex)) throw new AlertRefusal(400, 'invalid_subscription', '`sourceSubIdRegex` may hold digits and | . * + ? ( ) ^ $, at most 100 characters.');
    if (r.sourceSubIdRegex !== null) {
      try {
        new RegExp(r.sourceSubIdRegex);
      } catch {
        throw new AlertRefusal(400, 'invalid_subscription', '`sourceSubIdRegex` is not a valid pattern.');
      }
    }
    if (r.targets.length > 20) throw new AlertRefusal(400, 'invalid_subscription', 'At most 20 targets per subscription.');
    await this.checkTargets(account, r.targets.map((t) => t.id));
    return r.targets.map((t) => ({ id: t.id, name: t.name ?? null, priority: t.priority ?? 0, isDisabled: t.isDisabled ?? false }));
  }

  async createRoute(account: AccountIdentity, r: RouteInput): Promise<AlertRoute> {
    const targets = await this.checkRoute(account, r);
    if ((await this.o.store.alerts.routes(account.id)).length >= ALERT_LIMITS[account.tier].subscriptions) throw new AlertRefusal(403, 'alert_limit', 'Your tier allows no more subscriptions.');
    return this.o.store.alerts.createRoute({ accountId: account.id, sourceType: r.sourceType, sourceRegex: r.sourceSubIdRegex, targets });
  }

  async updateRoute(account: AccountIdentity, id: number, r: RouteInput): Promise<void> {
    const targets = await this.checkRoute(account, r);
    if (!(await this.o.store.alerts.updateRoute(id, { accountId: account.id, sourceType: r.sourceType, sourceRegex: r.sourceSubIdRegex, targets }))) {
      throw new AlertRefusal(404, 'subscription_not_found', `You have no subscription ${id}.`);
    }
  }

  routes(account: AccountIdentity): Promise<AlertRoute[]> {
    return this.o.store.alerts.routes(account.id);
  }

  async deleteRoute(account: AccountIdentity, id: number): Promise<void> {
    if (!(await this.o.store.alerts.deleteRoute(id, account.id))) throw new AlertRefusal(404, 'subscription_not_found', `You have no subscription ${id}.`);
  }

  deliveries(account: AccountIdentity, limit: number): Promise<AlertDelivery[]> {
    return this.o.store.alerts.deliveries(account.id, limit);
  }
}

/** Runs a domain parse, turning its refusal into an AlertRefusal (a FilterError passes: http/errors.ts answers it). */
function refusing<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof AlertSpecError) throw new AlertRefusal(400, err.slug, err.message);
    throw err;
  }
}
