/**
 * Alerts (migration 021): targets, subscriptions, routes and the delivery outbox. The evaluator
 * inserts deliveries (ignoring an alert already stored for a target: the idempotency key); the one
 * delivery worker reads what is due, marks it delivered, reschedules it, or fails it and marks its
 * target failing with the reason the owner sees.
 */
import type { Kysely } from 'kysely';
import type { AlertSpec, AlertSubscription } from '../../domain/alerts/spec.ts';
import type { AlertDeliveriesTable, AlertTargetsTable, Database } from '../schema.ts';

export type { AlertDelivery, AlertRoute, AlertTarget, NewDelivery, StoredSubscription, TargetLinkRow } from '../../domain/alerts/records.ts';
import type { AlertDelivery, AlertRoute, AlertTarget, NewDelivery, StoredSubscription, TargetLinkRow } from '../../domain/alerts/records.ts';

type TargetRow = Omit<AlertTargetsTable, 'id' | 'use_count'> & { id: number; use_count: number };
type DeliveryRow = Omit<AlertDeliveriesTable, 'id' | 'attempts'> & { id: number; attempts: number };

const toTarget = (r: TargetRow): AlertTarget => ({
  id: Number(r.id),
  accountId: Number(r.account_id),
  type: Number(r.type),
  target: r.target,
  name: r.name,
  when: Number(r.notify_when),
  secret: r.secret,
  useCount: Number(r.use_count),
  failingSince: r.failing_since === null ? null : Number(r.failing_since),
  lastError: r.last_error,
  createdAt: Number(r.created_at),
});

const toDelivery = (r: DeliveryRow): AlertDelivery => ({
  id: Number(r.id),
  alertKey: r.alert_key,
  targetId: Number(r.target_id),
  accountId: Number(r.account_id),
  subscriptionId: r.subscription_id === null ? null : Number(r.subscription_id),
  body: r.body,
  status: r.status,
  attempts: Number(r.attempts),
  nextAttemptAt: Number(r.next_attempt_at),
  createdAt: Number(r.created_at),
  deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
  lastError: r.last_error,
});

export class AlertRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // Targets ---------------------------------------------------------------

  async createTarget(t: { accountId: number; type: number; target: string; name: string | null; when: number; secret: string | null; now: number }): Promise<AlertTarget> {
    const row = await this.db
      .insertInto('alert_targets')
      .values({ account_id: t.accountId, type: t.type, target: t.target, name: t.name, notify_when: t.when, secret: t.secret, failing_since: null, last_error: null, created_at: t.now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toTarget(row);
  }

  async targets(accountId: number): Promise<AlertTarget[]> {
    const rows = await this.db.selectFrom('alert_targets').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map(toTarget);
  }

  async target(id: number): Promise<AlertTarget | undefined> {
    const row = await this.db.selectFrom('alert_targets').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toTarget(row) : undefined;
  }

  async targetsByIds(ids: readonly number[]): Promise<Map<number, AlertTarget>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('alert_targets').selectAll().where('id', 'in', [...ids]).execute();
    return new Map(rows.map((r) => [Number(r.id), toTarget(r)]));
  }

  /** Changes the owner's target (its secret stays); false when it is not theirs. A changed target is no longer failing. */
  async updateTarget(id: number, accountId: number, t: { type: number; target: string; name: string | null; when: number }): Promise<boolean> {
    const r = await this.db
      .updateTable('alert_targets')
      .set({ type: t.type, target: t.target, name: t.name, notify_when: t.when, failing_since: null, last_error: null })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Deletes the owner's target and its pending deliveries; false when it is not theirs. */
  async deleteTarget(id: number, accountId: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.deleteFrom('alert_targets').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
      if (Number(r.numDeletedRows) !== 1) return false;
      await trx.deleteFrom('alert_deliveries').where('target_id', '=', id).where('status', '=', 'pending').execute();
      return true;
    });
  }

  async countTargets(accountId: number): Promise<number> {
    const row = await this.db.selectFrom('alert_targets').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  // Subscriptions ---------------------------------------------------------

  async createSubscription(s: { accountId: number; spec: AlertSpec; minIntervalMs: number; targetIds: number[] | null; listener: Record<string, unknown> | null; now: number }): Promise<StoredSubscription> {
    const row = await this.db
      .insertInto('alert_subscriptions')
      .values({
        account_id: s.accountId,
        spec: JSON.stringify(s.spec),
        min_interval_ms: s.minIntervalMs,
        target_ids: s.targetIds === null ? null : JSON.stringify(s.targetIds),
        listener: s.listener === null ? null : JSON.stringify(s.listener),
        created_at: s.now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), accountId: s.accountId, spec: s.spec, minIntervalMs: s.minIntervalMs, targetIds: s.targetIds, listener: s.listener, createdAt: s.now };
  }

  private static toSubscription(r: Omit<Database['alert_subscriptions'], 'id'> & { id: number }): StoredSubscription {
    return {
      id: Number(r.id),
      accountId: Number(r.account_id),
      spec: JSON.parse(r.spec) as AlertSpec,
      minIntervalMs: Number(r.min_interval_ms),
      targetIds: r.target_ids === null ? null : (JSON.parse(r.target_ids) as number[]),
      listener: r.listener === null ? null : (JSON.parse(r.listener) as Record<string, unknown>),
      createdAt: Number(r.created_at),
    };
  }

  async subscriptions(accountId: number): Promise<StoredSubscription[]> {
    const rows = await this.db.selectFrom('alert_subscriptions').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map((r) => AlertRepository.toSubscription(r));
  }

  /** Every subscription (the evaluator's index), in id order. */
  async allSubscriptions(): Promise<StoredSubscription[]> {
    const rows = await this.db.selectFrom('alert_subscriptions').selectAll().orderBy('id').execute();
    return rows.map((r) => AlertRepository.toSubscription(r));
  }

  /** A cheap fingerprint of the subscriptions and routes: the evaluator reloads when it changes. */
  async version(): Promise<string> {
    const s = await this.db.selectFrom('alert_subscriptions').select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('max')]).executeTakeFirst();
    const r = await this.db.selectFrom('alert_routes').select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('max')]).executeTakeFirst();
    const t = await this.db.selectFrom('alert_targets').select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('id').as('max')]).executeTakeFirst();
    return `${s?.n}/${s?.max}/${r?.n}/${r?.max}/${t?.n}/${t?.max}`;
  }

  async deleteSubscription(id: number, accountId: number): Promise<boolean> {
    const r = await this.db.deleteFrom('alert_subscriptions').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  async countSubscriptions(accountId: number): Promise<number> {
    const row = await this.db.selectFrom('alert_subscriptions').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  // Routes (PublicSubscription) -------------------------------------------

  async createRoute(r: { accountId: number; sourceType: string; sourceRegex: string | null; targets: TargetLinkRow[] }): Promise<AlertRoute> {
    const row = await this.db
      .insertInto('alert_routes')
      .values({ account_id: r.accountId, source_type: r.sourceType, source_regex: r.sourceRegex, targets: JSON.stringify(r.targets) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), ...r };
  }

  async updateRoute(id: number, r: { accountId: number; sourceType: string; sourceRegex: string | null; targets: TargetLinkRow[] }): Promise<boolean> {
    const u = await this.db
      .updateTable('alert_routes')
      .set({ source_type: r.sourceType, source_regex: r.sourceRegex, targets: JSON.stringify(r.targets) })
      .where('id', '=', id)
      .where('account_id', '=', r.accountId)
      .executeTakeFirst();
    return Number(u.numUpdatedRows) === 1;
  }

  async routes(accountId?: number): Promise<AlertRoute[]> {
    let q = this.db.selectFrom('alert_routes').selectAll().orderBy('id');
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const rows = await q.execute();
    return rows.map((r) => ({ id: Number(r.id), accountId: Number(r.account_id), sourceType: r.source_type, sourceRegex: r.source_regex, targets: JSON.parse(r.targets) as TargetLinkRow[] }));
  }

  async deleteRoute(id: number, accountId: number): Promise<boolean> {
    const r = await this.db.deleteFrom('alert_routes').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** Every target (the evaluator's fan-out), by account. */
  async allTargets(): Promise<AlertTarget[]> {
    const rows = await this.db.selectFrom('alert_targets').selectAll().orderBy('id').execute();
    return rows.map(toTarget);
  }

  // Deliveries ------------------------------------------------------------

  /**
   * Stores deliveries due now; one already stored for the same alert and target is left as it is
   * (the idempotency key), so evaluating a change twice delivers once. Returns how many were new.
   */
  async enqueue(deliveries: readonly NewDelivery[], now: number): Promise<number> {
    if (deliveries.length === 0) return 0;
    let added = 0;
    for (let i = 0; i < deliveries.length; i += 200) {
      const chunk = deliveries.slice(i, i + 200);
      const r = await this.db
        .insertInto('alert_deliveries')
        .values(
          chunk.map((d) => ({
            alert_key: d.alertKey,
            target_id: d.targetId,
            account_id: d.accountId,
            subscription_id: d.subscriptionId,
            body: d.body,
            status: 'pending' as const,
            next_attempt_at: now,
            created_at: now,
            delivered_at: null,
            last_error: null,
          })),
        )
        .onConflict((oc) => oc.columns(['alert_key', 'target_id']).doNothing())
        .executeTakeFirst();
      added += Number(r.numInsertedOrUpdatedRows ?? 0);
    }
    return added;
  }

  /**
   * Pending deliveries due at `now`, oldest first, but those to targets of `heldTypes` (IN_GAME:
   * the mod channel sends them, `claimHeld`).
   */
  async due(now: number, limit: number, heldTypes: readonly number[] = []): Promise<AlertDelivery[]> {
    let q = this.db.selectFrom('alert_deliveries').selectAll().where('status', '=', 'pending').where('next_attempt_at', '<=', now);
    if (heldTypes.length > 0) q = q.where('target_id', 'not in', (eb) => eb.selectFrom('alert_targets').select('id').where('type', 'in', [...heldTypes]));
    const rows = await q.orderBy('next_attempt_at').orderBy('id').limit(limit).execute();
    return rows.map(toDelivery);
  }

  /**
   * Claims the pending deliveries of `accountIds` to targets of `type` (IN_GAME) that are due: each
   * is leased until `now + leaseMs` (another process's channel skips it meanwhile; a crash before it
   * is marked delivered lets the lease run out and it is sent again). Only the rows this call
   * changed are answered, so two processes never claim the same row at once. Oldest first.
   */
  async claimHeld(type: number, accountIds: readonly number[], now: number, leaseMs: number, limit: number): Promise<AlertDelivery[]> {
    if (accountIds.length === 0) return [];
    const ids = await this.db
      .selectFrom('alert_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where('account_id', 'in', [...accountIds])
      .where('target_id', 'in', (eb) => eb.selectFrom('alert_targets').select('id').where('type', '=', type).where('account_id', 'in', [...accountIds]))
      .orderBy('id')
      .limit(limit)
      .execute();
    if (ids.length === 0) return [];
    const rows = await this.db
      .updateTable('alert_deliveries')
      .set({ next_attempt_at: now + leaseMs })
      .where('id', 'in', ids.map((r) => Number(r.id)))
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .returningAll()
      .execute();
    return rows.map(toDelivery).sort((a, b) => a.id - b.id);
  }

  /** Gives a claimed delivery back (no session took it): due again at `now`. */
  async release(d: AlertDelivery, now: number): Promise<void> {
    await this.db.updateTable('alert_deliveries').set({ next_attempt_at: now }).where('id', '=', d.id).where('status', '=', 'pending').execute();
  }

  /**
   * Fails the pending deliveries to targets of `type` created before `before` (held too long: no
   * mod session of the account connected), with `reason`; the target is not marked failing (its
   * owner was away, the target is fine). Answers how many.
   */
  async expireHeld(type: number, before: number, reason: string): Promise<number> {
    const r = await this.db
      .updateTable('alert_deliveries')
      .set({ status: 'failed', last_error: reason.slice(0, 500) })
      .where('status', '=', 'pending')
      .where('created_at', '<', before)
      .where('target_id', 'in', (eb) => eb.selectFrom('alert_targets').select('id').where('type', '=', type))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** When the next pending delivery is due (ms), undefined when none is pending. */
  async nextDue(): Promise<number | undefined> {
    const row = await this.db.selectFrom('alert_deliveries').select((eb) => eb.fn.min('next_attempt_at').as('at')).where('status', '=', 'pending').executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** Delivered: the delivery is done, its target counts a use and is no longer failing. */
  async delivered(d: AlertDelivery, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('alert_deliveries').set({ status: 'delivered', delivered_at: now, attempts: d.attempts + 1, last_error: null }).where('id', '=', d.id).execute();
      await trx
        .updateTable('alert_targets')
        .set((eb) => ({ use_count: eb('use_count', '+', 1), failing_since: null, last_error: null }))
        .where('id', '=', d.targetId)
        .execute();
    });
  }

  /** A failed attempt: retried at `retryAt`, or (null) failed for good with its target marked failing. */
  async attemptFailed(d: AlertDelivery, error: string, retryAt: number | null, now: number): Promise<void> {
    const message = error.slice(0, 500);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('alert_deliveries')
        .set({ status: retryAt === null ? 'failed' : 'pending', attempts: d.attempts + 1, next_attempt_at: retryAt ?? d.nextAttemptAt, last_error: message })
        .where('id', '=', d.id)
        .execute();
      if (retryAt === null) {
        await trx
          .updateTable('alert_targets')
          .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)), last_error: message }))
          .where('id', '=', d.targetId)
          .execute();
      }
    });
  }

  /** The owner's latest deliveries, newest first. */
  async deliveries(accountId: number, limit = 50): Promise<AlertDelivery[]> {
    const rows = await this.db.selectFrom('alert_deliveries').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toDelivery);
  }

  /** Deliveries created for `accountId` since `since` (the per-hour limit across restarts). */
  async countSince(accountId: number, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('alert_deliveries')
      .select((eb) => eb.fn.count<number>('alert_key').distinct().as('n'))
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Removes finished deliveries older than `before` (retention). */
  async prune(before: number): Promise<number> {
    const r = await this.db.deleteFrom('alert_deliveries').where('status', '!=', 'pending').where('created_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
