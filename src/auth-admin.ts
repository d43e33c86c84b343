/**
 * The operator commands behind `skymarket accounts|keys|partners`: each takes an open
 * store and returns the lines to print. A new credential is printed alone on the last line
 * (easy to capture with `| tail -n1`) and is never shown again. They work against the same
 * database as a running server (SQLite in WAL mode, or PostgreSQL).
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { compactPlayerUuid } from './domain/player-data.ts';
import { TIERS, TIER_NAMES, effectiveTier, isTier, type Tier } from './domain/tiers.ts';
import type { Store } from './store/index.ts';
import type { AccountRecord } from './store/repositories/accounts.ts';

/** A mistake in the operator's input: one line, exit code 1. */
export class AdminError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminError';
  }
}

function iso(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString();
}

export function parseId(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value.trim())) throw new AdminError(`${what} id must be a positive integer, got '${value}'`);
  return Number(value.trim());
}

export function parseDays(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,5}$/.test(value.trim()) || Number(value) < 1) throw new AdminError(`--days must be a whole number of days from 1 to 99999, got '${value}'`);
  return Number(value);
}

function parseTier(value: string): Tier {
  const v = value.trim().toLowerCase().replace(/-/g, '_');
  if (!isTier(v)) throw new AdminError(`tier must be one of ${TIERS.join(', ')}, got '${value}'`);
  return v;
}

function describeAccount(a: AccountRecord, now: number): string {
  const effective = effectiveTier(a.tier, a.tierExpiresAt, now);
  const tier = effective === a.tier ? TIER_NAMES[a.tier] : `${TIER_NAMES[a.tier]} (expired: ${TIER_NAMES[effective]})`;
  const until = a.tier !== 'free' && a.tierExpiresAt !== null ? ` until ${iso(a.tierExpiresAt)}` : '';
  return `account ${a.id}${a.name ? ` '${a.name}'` : ''}: ${tier}${until}${a.revokedAt !== null ? `, revoked ${iso(a.revokedAt)}` : ''}`;
}

export async function accountsCreate(store: Store, opts: { tier: string; days?: string; name?: string }, now: number): Promise<string[]> {
  const tier = parseTier(opts.tier);
  const days = parseDays(opts.days);
  const name = opts.name?.trim();
  if (name !== undefined && (name.length === 0 || name.length > 100)) throw new AdminError('--name must be 1-100 characters');
  const { account, token } = await store.accounts.create({ tier, days, name, now });
  return [`created ${describeAccount(account, now)}`, 'token (shown once; send it as Authorization: Bearer <token>):', token];
}

export async function accountsList(store: Store, now: number): Promise<string[]> {
  const accounts = await store.accounts.list();
  if (accounts.length === 0) return ['no accounts'];
  return accounts.map((a) => describeAccount(a, now));
}

export async function accountsSetTier(store: Store, id: string, opts: { tier: string; days?: string }, now: number): Promise<string[]> {
  const accountId = parseId(id, 'account');
  const tier = parseTier(opts.tier);
  const days = parseDays(opts.days);
  if (!(await store.accounts.setTier(accountId, tier, days, now))) throw new AdminError(`no account ${accountId}`);
  const account = await store.accounts.get(accountId);
  return [`updated ${account ? describeAccount(account, now) : `account ${accountId}`}`];
}

export async function accountsRevoke(store: Store, id: string, now: number): Promise<string[]> {
  const accountId = parseId(id, 'account');
  if (await store.accounts.revoke(accountId, now)) return [`revoked account ${accountId}: its token no longer works`];
  if (await store.accounts.get(accountId)) throw new AdminError(`account ${accountId} is already revoked`);
  throw new AdminError(`no account ${accountId}`);
}

export async function keysCreate(store: Store, opts: { player: string; profile?: string }, now: number): Promise<string[]> {
  const player = compactPlayerUuid(opts.player);
  if (!player) throw new AdminError(`--player must be a player uuid (32 hex digits, dashes optional), got '${opts.player}'`);
  let profile: string | undefined;
  if (opts.profile !== undefined) {
    profile = compactPlayerUuid(opts.profile);
    if (!profile) throw new AdminError(`--profile must be a profile uuid (32 hex digits, dashes optional), got '${opts.profile}'`);
  }
  const { key, token } = await store.apiKeys.create({ playerUuid: player, profileUuid: profile, now });
  return [
    `created API key ${key.id} for player ${key.playerUuid}${key.profileUuid ? ` profile ${key.profileUuid}` : ''}, expires ${iso(key.expiresAt)}`,
    'key (shown once; pass it as ?apiKey=<key> or header X-Api-Key):',
    token,
  ];
}

export async function keysList(store: Store, opts: { player?: string }, now: number): Promise<string[]> {
  const keys = await store.apiKeys.list(opts.player);
  if (keys.length === 0) return ['no API keys'];
  return keys.map((k) => {
    const state = k.revokedAt !== null ? `revoked ${iso(k.revokedAt)}` : k.expiresAt <= now ? `expired ${iso(k.expiresAt)}` : `expires ${iso(k.expiresAt)}`;
    return `key ${k.id}: player ${k.playerUuid}${k.profileUuid ? ` profile ${k.profileUuid}` : ''}, ${state}`;
  });
}

export async function keysRevoke(store: Store, id: string, now: number): Promise<string[]> {
  const keyId = parseId(id, 'key');
  if (!(await store.apiKeys.revoke(keyId, now))) throw new AdminError(`no active API key ${keyId}`);
  return [`revoked API key ${keyId}`];
}

export async function partnersCreate(store: Store, opts: { name: string }, now: number): Promise<string[]> {
  const name = opts.name.trim();
  if (name.length === 0 || name.length > 100) throw new AdminError('--name must be 1-100 characters');
  const { partner, token } = await store.partners.create({ name, now });
  return [`created partner ${partner.id} '${partner.name}'`, 'partner token (shown once; pass it as ?token=<token>):', token];
}

export async function partnersList(store: Store): Promise<string[]> {
  const partners = await store.partners.list();
  if (partners.length === 0) return ['no partners'];
  return partners.map((p) => `partner ${p.id} '${p.name}'${p.revokedAt !== null ? `, revoked ${iso(p.revokedAt)}` : ''}`);
}

export async function partnersRevoke(store: Store, id: string, now: number): Promise<string[]> {
  const partnerId = parseId(id, 'partner');
  if (!(await store.partners.revoke(partnerId, now))) throw new AdminError(`no active partner ${partnerId}`);
  return [`revoked partner ${partnerId}`];
}

/**
 * Adds the accounts, keys and partners commands to the program. `run` opens the store from
 * the command's storage flags, runs the action and prints its lines.
 */
export function registerAuthCommands(
  program: Command,
  withStorageFlags: (command: Command) => Command,
  run: (flags: Record<string, unknown>, action: (store: Store, now: number) => Promise<string[]>) => Promise<void>,
): void {
  const tierOption = () => new Option('--tier <tier>', `account tier: ${TIERS.join(', ')}`).makeOptionMandatory();
  const daysOption = () => new Option('--days <n>', 'the paid tier lasts N days (default: no expiry)');

  const accounts = program.command('accounts').description('manage accounts and their tiers (prints a new token once)');
  withStorageFlags(accounts.command('create').description('create an account; prints its token alone on the last line'))
    .addOption(tierOption())
    .addOption(daysOption())
    .option('--name <name>', 'a label for the account')
    .action((flags) => run(flags, (store, now) => accountsCreate(store, flags, now)));
  withStorageFlags(accounts.command('list').description('list accounts with their tier and expiry')).action((flags) =>
    run(flags, (store, now) => accountsList(store, now)),
  );
  withStorageFlags(accounts.command('set-tier <id>').description("change an account's tier (and expiry)"))
    .addOption(tierOption())
    .addOption(daysOption())
    .action((id: string, flags) => run(flags, (store, now) => accountsSetTier(store, id, flags, now)));
  withStorageFlags(accounts.command('revoke <id>').description("revoke an account's token")).action((id: string, flags) =>
    run(flags, (store, now) => accountsRevoke(store, id, now)),
  );

  const keys = program.command('keys').description('manage player API keys (bound to one player, 180 days)');
  withStorageFlags(keys.command('create').description('create a player API key; prints it alone on the last line'))
    .requiredOption('--player <uuid>', 'player uuid')
    .option('--profile <uuid>', 'bind the key to one profile of the player')
    .action((flags) => run(flags, (store, now) => keysCreate(store, flags, now)));
  withStorageFlags(keys.command('list').description('list API keys'))
    .option('--player <uuid>', 'only keys of this player')
    .action((flags) => run(flags, (store, now) => keysList(store, flags, now)));
  withStorageFlags(keys.command('revoke <id>').description('revoke a player API key')).action((id: string, flags) =>
    run(flags, (store, now) => keysRevoke(store, id, now)),
  );

  const partners = program.command('partners').description('manage partner tokens');
  withStorageFlags(partners.command('create').description('create a partner token; prints it alone on the last line'))
    .requiredOption('--name <name>', 'partner name')
    .action((flags) => run(flags, (store, now) => partnersCreate(store, flags, now)));
  withStorageFlags(partners.command('list').description('list partners')).action((flags) => run(flags, (store) => partnersList(store)));
  withStorageFlags(partners.command('revoke <id>').description('revoke a partner token')).action((id: string, flags) =>
    run(flags, (store, now) => partnersRevoke(store, id, now)),
  );
}
