/**
 * `skymarket alerts`: an operator creates notification targets and alert subscriptions for an
 * account (docs/alerts.md), through the same checks and tier limits as the API.
 */
import type { Command } from 'commander';
import { AdminError, parseId } from './auth-admin.ts';
import type { Config } from './config.ts';
import { TARGET_TYPES } from './domain/alerts/targets.ts';
import { effectiveTier } from './domain/tiers.ts';
import { AlertRefusal, AlertsService } from './services/alerts.ts';
import type { Store } from './store/index.ts';
import { FilterError } from './domain/filters.ts';

const TYPES: Record<string, number> = { webhook: TARGET_TYPES.WEBHOOK, discord: TARGET_TYPES.DISCORD_WEBHOOK, 'in-game': TARGET_TYPES.IN_GAME, 'live-feed': TARGET_TYPES.LIVE_FEED };
const NEEDS_URL = new Set(['webhook', 'discord']);

async function serviceFor(store: Store, config: Pick<Config, 'exportWebhookHosts' | 'alertWebhookPrivateOk'>, accountId: string, now: number) {
  const id = parseId(accountId, 'account');
  const account = await store.accounts.get(id);
  if (!account || account.revokedAt !== null) throw new AdminError(`no active account ${id}`);
  const service = new AlertsService({ store, clock: { now: () => now }, discordHosts: config.exportWebhookHosts, allowPrivate: config.alertWebhookPrivateOk });
  const identity = { id, name: account.name, tier: effectiveTier(account.tier, account.tierExpiresAt, now), tierExpiresAt: account.tierExpiresAt };
  return { service, identity };
}

/** Runs a service call, turning its refusal into the command's error message. */
async function refused<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AlertRefusal || err instanceof FilterError) throw new AdminError(err.message);
    throw err;
  }
}

export async function alertTargetAdd(store: Store, config: Pick<Config, 'exportWebhookHosts' | 'alertWebhookPrivateOk'>, accountId: string, opts: { type: string; url?: string; name?: string }, now: number): Promise<string[]> {
  const type = TYPES[opts.type];
  if (type === undefined) throw new AdminError(`--type must be one of ${Object.keys(TYPES).join(', ')}`);
  if (NEEDS_URL.has(opts.type) && !opts.url) throw new AdminError(`--url is required for a ${opts.type} target`);
  const { service, identity } = await serviceFor(store, config, accountId, now);
  const target = await refused(() => service.createTarget(identity, { type, target: opts.url ?? '', name: opts.name ?? null, when: 2 }));
  const lines = [`created target ${target.id} (${opts.type}) for account ${identity.id}`];
  if (target.secret) lines.push('signing secret (shown once; the receiver verifies X-Skymarket-Signature with it):', target.secret);
  return lines;
}

export async function alertAdd(store: Store, config: Pick<Config, 'exportWebhookHosts' | 'alertWebhookPrivateOk'>, accountId: string, opts: { spec: string; interval?: string; targets?: string }, now: number): Promise<string[]> {
  let spec: unknown;
  try {
    spec = JSON.parse(opts.spec);
  } catch {
    throw new AdminError('--spec must be JSON, e.g. {"kind":"listing","tag":"HYPERION","maxPrice":800000000}');
  }
  const targets = opts.targets ? opts.targets.split(',').map((t) => parseId(t.trim(), 'target')) : null;
  const { service, identity } = await serviceFor(store, config, accountId, now);
  const created = await refused(() => service.createAlert(identity, { spec, ...(opts.interval ? { minIntervalSeconds: Number(opts.interval) } : {}), targets }));
  return [`created alert ${created.id} for account ${identity.id}: ${JSON.stringify(created.spec)}`];
}

export async function alertList(store: Store, accountId: string): Promise<string[]> {
  const id = parseId(accountId, 'account');
  const [targets, alerts] = await Promise.all([store.alerts.targets(id), store.alerts.subscriptions(id)]);
  const names = Object.fromEntries(Object.entries(TYPES).map(([name, type]) => [type, name]));
  const lines = targets.map((t) => `target ${t.id} type ${t.type} (${names[t.type] ?? 'unknown'})${t.target ? ` ${t.target}` : ''}${t.failingSince !== null ? ` FAILING: ${t.lastError}` : ''}`);
  for (const a of alerts) lines.push(`alert ${a.id} every ≥ ${a.minIntervalMs / 1000} s → ${a.targetIds ? `targets ${a.targetIds.join(',')}` : 'routes / ALWAYS targets'}: ${JSON.stringify(a.spec)}`);
  return lines.length ? lines : [`account ${id} has no targets or alerts`];
}

export function registerAlertCommands(
  program: Command,
  withStorageFlags: (command: Command) => Command,
  run: (flags: Record<string, unknown>, action: (store: Store, now: number) => Promise<string[]>) => Promise<void>,
  config: () => Pick<Config, 'exportWebhookHosts' | 'alertWebhookPrivateOk'>,
): void {
  const alerts = program.command('alerts').description("manage an account's alert targets and subscriptions (docs/alerts.md)");
  withStorageFlags(
    alerts
      .command('target-add <accountId>')
      .description("add a target: a webhook (signed; prints its secret once), a Discord webhook, the account's mod sessions (in-game) or its live-feed topic (live-feed)"),
  )
    .requiredOption('--type <type>', 'webhook, discord, in-game or live-feed')
    .option('--url <url>', 'webhook and discord: the https webhook URL, or a Discord webhook URL on EXPORT_WEBHOOK_HOSTS')
    .option('--name <name>', 'a label')
    .action((accountId: string, flags) => run(flags, (store, now) => alertTargetAdd(store, config(), accountId, flags, now)));
  withStorageFlags(alerts.command('add <accountId>').description('add an alert subscription'))
    .requiredOption('--spec <json>', 'the alert spec as JSON (docs/alerts.md, "Subscription kinds")')
    .option('--interval <seconds>', 'at most one alert per this many seconds (default 60)')
    .option('--targets <ids>', 'comma-separated target ids (default: the routes, else every ALWAYS target)')
    .action((accountId: string, flags) => run(flags, (store, now) => alertAdd(store, config(), accountId, flags, now)));
  withStorageFlags(alerts.command('list <accountId>').description("list an account's targets (with failures) and alerts")).action((accountId: string, flags) =>
    run(flags, (store) => alertList(store, accountId)),
  );
}
