/**
 * Alerts over HTTP (issue 47, docs/alerts.md): the established `/api/notifications/targets`,
 * `/targets/test`, `/listeners` and `/subscriptions` (their client's NotificationTarget, Listener and
 * PublicSubscription shapes, with skymarket's fields added), and skymarket's own `/alerts` (every
 * alert kind) and `/deliveries` (what was sent, what failed and why). Every route needs an account
 * token; the tier sets the limits.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { ALERT_KINDS } from '../domain/alerts/spec.ts';
import { ADDRESSLESS_TYPES, notifyWhenOf, targetTypeOf } from '../domain/alerts/targets.ts';
import { HttpProblem } from '../http/problem.ts';
import { isoTime, problemResponses } from '../http/schemas.ts';
import { AlertRefusal } from '../services/alerts.ts';
import type { AlertDelivery, AlertRoute, AlertTarget, StoredSubscription } from '../domain/alerts/records.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const NotificationTarget = Type.Object(
  {
    id: Type.Integer(),
    target: Nullable(Type.String({ description: 'the URL of a WEBHOOK or DISCORD_WEBHOOK; null for IN_GAME and LIVE_FEED (the account is the address)' })),
    type: Type.Integer({
      description:
        "TargetType: 1 WEBHOOK (signed, docs/alerts.md), 3 DISCORD_WEBHOOK, 6 IN_GAME (the account's mod sessions, /modsocket `writeToChat`), 100 LIVE_FEED (skymarket: the account's `alert` topic of /api/stream); 0, 2, 4, 5 are not delivered",
    }),
    when: Type.Integer({ description: 'NotifyWhen: 0 NEVER (paused), 1 AFTER_FAIL (when every ALWAYS target fails), 2 ALWAYS' }),
    userId: Nullable(Type.String()),
    name: Nullable(Type.String()),
    useCount: Type.Integer({ description: 'alerts delivered to it' }),
    failing: Type.Boolean({ description: 'skymarket: a delivery to it failed for good (retries exhausted or refused); cleared by the next success or an update' }),
    failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastError: Nullable(Type.String({ description: 'skymarket: why the last failed delivery failed' })),
    secret: Type.Optional(Type.String({ description: 'skymarket: the signing secret of a WEBHOOK target, answered once, when it is created' })),
  },
  { $id: 'NotificationTarget' },
);

const TYPE_NAMES = 'WEBHOOK, DISCORD, DiscordWebhook (DISCORD_WEBHOOK), FIREBASE, EMAIL, InGame (IN_GAME), LIVE_FEED';
const TargetBody = Type.Object({
  id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  target: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'the URL (WEBHOOK, DISCORD_WEBHOOK); ignored for IN_GAME and LIVE_FEED' }))),
  type: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.String({ maxLength: 20, description: `or the name the established client sends: ${TYPE_NAMES}` })], {
    description: 'TargetType: 1 WEBHOOK, 3 DISCORD_WEBHOOK, 6 IN_GAME, 100 LIVE_FEED (docs/alerts.md), as the integer or its name',
  }),
  when: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2 }), Type.String({ maxLength: 20, description: 'or NEVER, AfterFail (AFTER_FAIL), ALWAYS' })], { description: 'NotifyWhen (default 2 ALWAYS)' })),
  name: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
  userId: Type.Optional(Nullable(Type.String({ maxLength: 36 }))),
  useCount: Type.Optional(Type.Integer()),
});
const TargetRef = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

const Listener = Type.Object(
  {
    id: Type.Integer(),
    topicId: Nullable(Type.String()),
    price: Type.Number(),
    type: Type.Integer(),
    userId: Type.Integer(),
    filter: Nullable(Type.String()),
  },
  { $id: 'Listener' },
);
const ListenerBody = Type.Object({
  id: Type.Optional(Type.Integer()),
  topicId: Type.String({ minLength: 1, maxLength: 45 }),
  price: Type.Number({ minimum: 0, maximum: 1e13 }),
  type: Type.Integer({ minimum: 0, maximum: 65_535 }),
  userId: Type.Optional(Type.Integer()),
  filter: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
});

const TargetLink = Type.Object({ name: Nullable(Type.String()), id: Type.Integer(), priority: Type.Integer(), isDisabled: Type.Boolean() });
const PublicSubscription = Type.Object(
  {
    sourceType: Type.String({ description: 'Any or Subscription (alerts of skymarket subscriptions)' }),
    id: Type.Integer(),
    sourceSubIdRegex: Nullable(Type.String()),
    targets: Type.Array(TargetLink),
  },
  { $id: 'PublicSubscription' },
);
const RouteBody = Type.Object({
  id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  sourceType: Type.Optional(Type.String({ maxLength: 20 })),
  sourceSubIdRegex: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  targets: Type.Optional(
    Nullable(
      Type.Array(
        Type.Object({
          id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
          name: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
          priority: Type.Optional(Type.Integer({ minimum: -1000, maximum: 1000 })),
          isDisabled: Type.Optional(Type.Boolean()),
        }),
        { maxItems: 20 },
      ),
    ),
  ),
});

const Alert = Type.Object(
  {
    id: Type.Integer(),
    spec: Type.Record(Type.String(), Type.Unknown(), { description: `the alert spec: kind ${ALERT_KINDS.join(' | ')} and its fields (docs/alerts.md)` }),
    minIntervalSeconds: Type.Integer(),
    targets: Type.Union([Type.Array(Type.Integer()), Type.Null()], { description: 'explicit targets; null: the routes, else every ALWAYS target' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AlertSubscription' },
);
const AlertBody = Type.Object({
  spec: Type.Record(Type.String(), Type.Unknown(), { description: 'kind plus its fields (docs/alerts.md); at most 4 KB of JSON, filters included' }),
  minIntervalSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 604_800, default: 60 })),
  targets: Type.Optional(Type.Union([Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), { maxItems: 20 }), Type.Null()])),
});

const Delivery = Type.Object(
  {
    id: Type.Integer(),
    alertId: Type.String({ description: 'the idempotency key the receiver sees (Idempotency-Key)' }),
    targetId: Type.Integer(),
    subscriptionId: Type.Union([Type.Integer(), Type.Null()]),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastError: Nullable(Type.String()),
    alert: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'AlertDelivery' },
);

function targetWire(t: AlertTarget, withSecret = false): Static<typeof NotificationTarget> {
  return {
    id: t.id,
    target: ADDRESSLESS_TYPES.includes(t.type) ? null : t.target,
    type: t.type,
    when: t.when,
    userId: String(t.accountId),
    name: t.name,
    useCount: t.useCount,
    failing: t.failingSince !== null,
    failingSince: t.failingSince === null ? null : isoTime(t.failingSince),
    lastError: t.lastError,
    ...(withSecret && t.secret ? { secret: t.secret } : {}),
  };
}

function listenerWire(s: StoredSubscription): Static<typeof Listener> {
  const l = s.listener ?? {};
  return { id: s.id, topicId: (l['topicId'] as string | undefined) ?? null, price: Number(l['price'] ?? 0), type: Number(l['type'] ?? 0), userId: s.accountId, filter: (l['filter'] as string | null | undefined) ?? null };
}

const routeWire = (r: AlertRoute): Static<typeof PublicSubscription> => ({ sourceType: r.sourceType, id: r.id, sourceSubIdRegex: r.sourceRegex, targets: r.targets });

const alertWire = (s: StoredSubscription): Static<typeof Alert> => ({
  id: s.id,
  spec: s.spec as unknown as Record<string, unknown>,
  minIntervalSeconds: Math.round(s.minIntervalMs / 1000),
  targets: s.targetIds,
  createdAt: isoTime(s.createdAt),
});

const deliveryWire = (d: AlertDelivery): Static<typeof Delivery> => ({
  id: d.id,
  alertId: d.alertKey,
  targetId: d.targetId,
  subscriptionId: d.subscriptionId,
  status: d.status,
  attempts: d.attempts,
  createdAt: isoTime(d.createdAt),
  nextAttemptAt: d.status === 'pending' ? isoTime(d.nextAttemptAt) : null,
  deliveredAt: d.deliveredAt === null ? null : isoTime(d.deliveredAt),
  lastError: d.lastError,
  alert: JSON.parse(d.body) as Record<string, unknown>,
});

/** Runs a service call, answering its refusal as a problem body. */
async function refused<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AlertRefusal) throw new HttpProblem(err.status, err.slug, err.message);
    throw err;
  }
}

const done = (reply: FastifyReply) => reply.code(200).send();
const TAGS = ['notifications'];
const CONFIG = { auth: 'token', cache: 'no-store' } as const;

export async function notificationRoutes(app: FastifyInstance) {
  const { alerts } = app.services;
  for (const schema of [NotificationTarget, Listener, PublicSubscription, Alert, Delivery]) app.addSchema(schema);
  const targetOf = (b: Static<typeof TargetBody>) => {
    const type = targetTypeOf(b.type);
    if (type === undefined) throw new HttpProblem(400, 'invalid_target', `Unknown target type \`${String(b.type).slice(0, 20)}\`: an integer or one of ${TYPE_NAMES}.`);
    const when = b.when === undefined ? 2 : notifyWhenOf(b.when);
    if (when === undefined) throw new HttpProblem(400, 'invalid_target', `Unknown \`when\` \`${String(b.when).slice(0, 20)}\`: 0 NEVER, 1 AfterFail, 2 ALWAYS.`);
    return { type, target: b.target ?? '', name: b.name ?? null, when };
  };

  app.get('/api/notifications/targets', { schema: { tags: TAGS, summary: "The account's notification targets, with whether each is failing and why", response: { 200: Type.Array(Type.Ref('NotificationTarget')) } }, config: CONFIG }, async (request) =>
    (await alerts.targets(request.account!)).map((t) => targetWire(t)),
  );

  app.post<{ Body: Static<typeof TargetBody> }>(
    '/api/notifications/targets',
    {
      schema: {
        tags: TAGS,
        summary:
          "Add a notification target: 1 WEBHOOK (https, signed; the secret is answered once), 3 DISCORD_WEBHOOK (an allow-listed Discord host), 6 IN_GAME (the account's mod sessions; held 24 h while none is connected) or 100 LIVE_FEED (the account's `alert` topic on /api/stream)",
        body: TargetBody,
        response: { 200: Type.Ref('NotificationTarget'), ...problemResponses(400, 403) },
      },
      config: CONFIG,
    },
    async (request) => targetWire(await refused(() => alerts.createTarget(request.account!, targetOf(request.body))), true),
  );

  app.put<{ Body: Static<typeof TargetBody> }>(
    '/api/notifications/targets',
    { schema: { tags: TAGS, summary: 'Change a notification target (by `id`); a changed target is no longer failing', body: TargetBody, response: problemResponses(400, 404) }, config: CONFIG },
    async (request, reply) => {
      if (!request.body.id) throw new HttpProblem(400, 'invalid_target', 'The target `id` is required.');
      await refused(() => alerts.updateTarget(request.account!, request.body.id!, targetOf(request.body)));
      return done(reply);
    },
  );

  app.delete<{ Body: Static<typeof TargetRef> }>(
    '/api/notifications/targets',
    { schema: { tags: TAGS, summary: 'Remove a notification target (by `id`) and its pending deliveries', body: TargetRef, response: problemResponses(400, 404) }, config: CONFIG },
    async (request, reply) => {
      await refused(() => alerts.deleteTarget(request.account!, request.body.id));
      return done(reply);
    },
  );

  app.post<{ Body: Static<typeof TargetRef> }>(
    '/api/notifications/targets/test',
    {
      schema: { tags: TAGS, summary: 'Send a test alert to a target (by `id`): queued like any alert; its outcome shows on the target and in /api/notifications/deliveries', body: TargetRef, response: problemResponses(400, 404) },
      config: CONFIG,
    },
    async (request, reply) => {
      await refused(() => alerts.testTarget(request.account!, request.body.id));
      return done(reply);
    },
  );

  app.get('/api/notifications/listeners', { schema: { tags: TAGS, summary: "The account's listeners (established shape)", response: { 200: Type.Array(Type.Ref('Listener')) } }, config: CONFIG }, async (request) =>
    (await alerts.listeners(request.account!)).map(listenerWire),
  );

  app.post<{ Body: Static<typeof ListenerBody> }>(
    '/api/notifications/listeners',
    {
      schema: {
        tags: TAGS,
        summary: 'Add a listener: type PRICE_LOWER_THAN (1, new listings at or under price; BIN 16 for BIN only), PRICE_HIGHER_THAN (2, lowest BIN rising to price), on a bazaar product its buy (sell with 32) price crossing, PLAYER (128) a player’s new auctions',
        body: ListenerBody,
        response: { 200: Type.Ref('Listener'), ...problemResponses(400, 403) },
      },
      config: CONFIG,
    },
    async (request) => {
      const b = request.body;
      return listenerWire(await refused(() => alerts.createListener(request.account!, { topicId: b.topicId, price: b.price, type: b.type, filter: b.filter ? b.filter : null })));
    },
  );

  app.delete<{ Body: Static<typeof TargetRef> }>(
    '/api/notifications/listeners',
    { schema: { tags: TAGS, summary: 'Remove a listener (by `id`)', body: TargetRef, response: problemResponses(400, 404) }, config: CONFIG },
    async (request, reply) => {
      await refused(() => alerts.deleteAlert(request.account!, request.body.id));
      return done(reply);
    },
  );

  const routeOf = (b: Static<typeof RouteBody>) => ({ sourceType: b.sourceType ?? 'Subscription', sourceSubIdRegex: b.sourceSubIdRegex ?? null, targets: b.targets ?? [] });

  app.get('/api/notifications/subscriptions', { schema: { tags: TAGS, summary: "The account's routes from alerts to targets (PublicSubscription)", response: { 200: Type.Array(Type.Ref('PublicSubscription')) } }, config: CONFIG }, async (request) =>
    (await alerts.routes(request.account!)).map(routeWire),
  );

  app.post<{ Body: Static<typeof RouteBody> }>(
    '/api/notifications/subscriptions',
    {
      schema: {
        tags: TAGS,
        summary: 'Route alerts to targets: the subscriptions (listeners, alerts) whose id matches sourceSubIdRegex (null: all) go to `targets`',
        body: RouteBody,
        response: { 200: Type.Ref('PublicSubscription'), ...problemResponses(400, 403) },
      },
      config: CONFIG,
    },
    async (request) => routeWire(await refused(() => alerts.createRoute(request.account!, routeOf(request.body)))),
  );

  app.put<{ Body: Static<typeof RouteBody> }>(
    '/api/notifications/subscriptions',
    { schema: { tags: TAGS, summary: 'Change a route (by `id`)', body: RouteBody, response: problemResponses(400, 404) }, config: CONFIG },
    async (request, reply) => {
      if (!request.body.id) throw new HttpProblem(400, 'invalid_subscription', 'The subscription `id` is required.');
      await refused(() => alerts.updateRoute(request.account!, request.body.id!, routeOf(request.body)));
      return done(reply);
    },
  );

  app.delete<{ Body: Static<typeof TargetRef> }>(
    '/api/notifications/subscriptions',
    { schema: { tags: TAGS, summary: 'Remove a route (by `id`)', body: TargetRef, response: problemResponses(400, 404) }, config: CONFIG },
    async (request, reply) => {
      await refused(() => alerts.deleteRoute(request.account!, request.body.id));
      return done(reply);
    },
  );

  app.get('/api/notifications/alerts', { schema: { tags: TAGS, summary: "skymarket: the account's alert subscriptions, listeners included", response: { 200: Type.Array(Type.Ref('AlertSubscription')) } }, config: CONFIG }, async (request) =>
    (await alerts.alerts(request.account!)).map(alertWire),
  );

  app.post<{ Body: Static<typeof AlertBody> }>(
    '/api/notifications/alerts',
    {
      schema: {
        tags: TAGS,
        summary: `skymarket: add an alert subscription of any kind (${ALERT_KINDS.join(', ')}), at most one alert per minIntervalSeconds`,
        body: AlertBody,
        response: { 200: Type.Ref('AlertSubscription'), ...problemResponses(400, 403) },
      },
      config: CONFIG,
    },
    async (request) => {
      const b = request.body;
      return alertWire(await refused(() => alerts.createAlert(request.account!, { spec: b.spec, ...(b.minIntervalSeconds !== undefined ? { minIntervalSeconds: b.minIntervalSeconds } : {}), targets: b.targets ?? null })));
    },
  );

  const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
  app.delete<{ Params: Static<typeof IdParams> }>(
    '/api/notifications/alerts/:id',
    { schema: { tags: TAGS, summary: 'skymarket: remove an alert subscription', params: IdParams, response: { 204: Type.Null(), ...problemResponses(400, 404) } }, config: CONFIG },
    async (request, reply) => {
      await refused(() => alerts.deleteAlert(request.account!, request.params.id));
      return reply.code(204).send();
    },
  );

  const DeliveryQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) });
  app.get<{ Querystring: Static<typeof DeliveryQuery> }>(
    '/api/notifications/deliveries',
    {
      schema: { tags: TAGS, summary: "skymarket: the account's latest deliveries, newest first: pending (with the next attempt), delivered, or failed with the reason", querystring: DeliveryQuery, response: { 200: Type.Array(Type.Ref('AlertDelivery')), ...problemResponses(400) } },
      config: CONFIG,
    },
    async (request) => (await alerts.deliveries(request.account!, request.query.limit)).map(deliveryWire),
  );
}
