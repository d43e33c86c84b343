/**
 * `skymarket links set|show|remove`: operators link an account to a Minecraft account
 * directly (without the bid challenge), inspect a link, or remove it. Each action takes an
 * open store and returns the lines to print.
 */
import type { Command } from 'commander';
import { AdminError, parseId } from '../auth-admin.ts';
import { compactPlayerUuid, PLAYER_NAME } from '../domain/player-data.ts';
import type { Store } from '../store/index.ts';
import type { AccountLink } from '../domain/account-links.ts';

function describe(link: AccountLink): string {
  return `account ${link.accountId} ↔ player ${link.playerUuid}${link.playerName ? ` '${link.playerName}'` : ''} (${link.method}, ${new Date(link.linkedAt).toISOString()})`;
}

export async function linksSet(store: Store, accountId: string, player: string, opts: { name?: string }, now: number): Promise<string[]> {
  const id = parseId(accountId, 'account');
  const uuid = compactPlayerUuid(player);
  if (!uuid) throw new AdminError(`player must be a uuid (32 hex digits, dashes optional), got '${player}'`);
  if (opts.name !== undefined && !PLAYER_NAME.test(opts.name)) throw new AdminError(`--name must be a Minecraft name (1-16 of A-Z a-z 0-9 _), got '${opts.name}'`);
  if (!(await store.accounts.get(id))) throw new AdminError(`no account ${id}`);
  const link = await store.modLinks.link(id, uuid, opts.name ?? null, 'operator', now);
  if (opts.name) await store.playerNames.record([{ playerUuid: uuid, name: opts.name }], 'operator', now);
  return [`linked ${describe(link)}`];
}

export async function linksShow(store: Store, accountId: string, now: number): Promise<string[]> {
  const id = parseId(accountId, 'account');
  const link = await store.modLinks.linkOf(id);
  const challenge = await store.modLinks.challengeOf(id, now);
  const lines = [link ? describe(link) : `account ${id} is not linked`];
  if (challenge) lines.push(`open challenge: bid ${challenge.amount} as ${challenge.playerUuid} before ${new Date(challenge.expiresAt).toISOString()}`);
  return lines;
}

export async function linksRemove(store: Store, accountId: string): Promise<string[]> {
  const id = parseId(accountId, 'account');
  if (!(await store.modLinks.unlink(id))) throw new AdminError(`account ${id} is not linked`);
  return [`unlinked account ${id}`];
}

export function registerModCommands(
  program: Command,
  withStorageFlags: (command: Command) => Command,
  run: (flags: Record<string, unknown>, action: (store: Store, now: number) => Promise<string[]>) => Promise<void>,
): void {
  const links = program.command('links').description('account ↔ Minecraft account links (the mod proves them by a bid; operators can set them)');
  withStorageFlags(links.command('set <accountId> <playerUuid>').description('link an account to a Minecraft account directly'))
    .option('--name <name>', 'the Minecraft name')
    .action((accountId: string, player: string, flags) => run(flags, (store, now) => linksSet(store, accountId, player, flags, now)));
  withStorageFlags(links.command('show <accountId>').description("show an account's link and open challenge")).action((accountId: string, flags) =>
    run(flags, (store, now) => linksShow(store, accountId, now)),
  );
  withStorageFlags(links.command('remove <accountId>').description("remove an account's link")).action((accountId: string, flags) =>
    run(flags, (store) => linksRemove(store, accountId)),
  );
}
