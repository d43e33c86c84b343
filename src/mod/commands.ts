/**
 * What each mod command does, once its message is authenticated and validated. Handlers
 * take the session's account and return the reply's `data`, or throw a ModError that the
 * session turns into an `error` message. Player data is always written for the account's
 * linked Minecraft account, never for a uuid the message names.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { AccountIdentity } from '../http/access.ts';
import type { Store } from '../store/index.ts';
import type { AccountLink } from '../domain/account-links.ts';
import { decodeAuctionItem, ItemDecodeError } from '../domain/nbt.ts';
import { lowballView, offerAuctionJson, offerFilters } from '../domain/lowball.ts';
import { compactPlayerUuid, normalizeTimes, type ExtractedState } from '../domain/player-data.ts';
import type { CommandData, CommandName } from './messages.ts';
import { cleanNpcName, NPC_SHOP_UPLOAD_KIND } from '../domain/flips/npc.ts';

export class ModError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ModError';
  }
}

export interface CommandContext {
  store: Store;
  clock: Clock;
  account: AccountIdentity;
}

type Handler<C extends CommandName> = (ctx: CommandContext, data: CommandData<C>) => Promise<unknown>;

async function requireLink(ctx: CommandContext): Promise<AccountLink> {
  const link = await ctx.store.modLinks.linkOf(ctx.account.id);
  if (!link) throw new ModError('not_linked', 'Link a Minecraft account first: send link.start and bid the amount it gives on any auction.');
  return link;
}

const iso = (ms: number) => new Date(ms).toISOString();
const uuid = (s: string) => compactPlayerUuid(s)!;

export const HANDLERS: { [C in Exclude<CommandName, 'auth'>]: Handler<C> } = {
  async ping(ctx) {
    return { time: iso(ctx.clock.now()) };
  },

  async 'link.start'(ctx, data) {
    const c = await ctx.store.modLinks.startChallenge(ctx.account.id, uuid(data.playerUuid), data.playerName ?? null, ctx.clock.now());
    // Not proven yet (the bid is): a hint.
    if (data.playerName) await ctx.store.playerNames.record([{ playerUuid: c.playerUuid, name: data.playerName }], 'mod', ctx.clock.now());
    return {
      amount: c.amount,
      playerUuid: c.playerUuid,
      expiresAt: iso(c.expiresAt),
      instructions: `Bid exactly ${c.amount} coins on any auction as this player before ${iso(c.expiresAt)}; the link is made when skymarket sees the bid.`,
    };
  },

  async 'link.status'(ctx) {
    const now = ctx.clock.now();
    const link = await ctx.store.modLinks.linkOf(ctx.account.id);
    const challenge = await ctx.store.modLinks.challengeOf(ctx.account.id, now);
    return {
      linked: link !== undefined,
      playerUuid: link?.playerUuid ?? null,
      playerName: link?.playerName ?? null,
      linkedAt: link ? iso(link.linkedAt) : null,
      pending: challenge ? { amount: challenge.amount, playerUuid: challenge.playerUuid, expiresAt: iso(challenge.expiresAt) } : null,
    };
  },

  async 'state.upload'(ctx, data) {
    const link = await requireLink(ctx);
    const profile = data.profileUuid ? uuid(data.profileUuid) : null;
    const stored = await ctx.store.players.mergeState(link.playerUuid, profile, normalizeTimes(data.state) as ExtractedState, ctx.clock.now());
    return { updatedAt: iso(stored.updatedAt), fields: Object.keys(data.state).sort() };
  },

  async 'orders.upload'(ctx, data) {
    const link = await requireLink(ctx);
    for (const [i, o] of data.orders.entries()) {
      if (o.filled > o.amount) throw new ModError('invalid_message', `orders.${i}: filled exceeds amount`, { errors: { [`data.orders.${i}.filled`]: ['must be <= amount'] } });
    }
    const orders = data.orders.map((o) => ({
      isSell: o.isSell,
      itemTag: o.itemTag.toUpperCase(),
      itemName: o.itemName ?? null,
      amount: o.amount,
      filled: o.filled,
      pricePerUnit: o.pricePerUnit,
      created: Date.parse(o.created),
      customers: o.customers ? o.customers.map((c) => ({ playerName: c.playerName, amount: c.amount, timeStamp: Date.parse(c.timeStamp) })) : null,
    }));
    await ctx.store.players.replaceOrders(link.playerUuid, orders, ctx.clock.now());
    return { count: orders.length };
  },

  async 'npcshop.upload'(ctx, data) {
    const link = await requireLink(ctx);
    // Kept with the other raw uploads (2 days); the flip engine reads the recent ones (src/market/flips.ts).
    const offers = data.offers.map((o) => ({ itemTag: o.itemTag.toUpperCase(), count: o.count, costs: o.costs.map((c) => ({ tag: c.tag.toUpperCase(), amount: c.amount })) }));
    // The name is shown on the flip pages: markup and formatting codes are dropped here, once.
    const npcName = cleanNpcName(data.npcName);
    if (npcName === undefined) throw new ModError('invalid_message', 'npcName has no readable characters', { errors: { 'data.npcName': ['must contain readable characters'] } });
    const body = JSON.stringify({ npcName, offers });
    await ctx.store.dataUploads.add({ id: randomUUID(), requestId: `mod:${link.playerUuid}`, kind: NPC_SHOP_UPLOAD_KIND, bytes: body.length, body, receivedAt: ctx.clock.now() });
    return { count: offers.length };
  },

  async 'flip.report'(ctx, data) {
    const link = await requireLink(ctx);
    const stored = await ctx.store.players.addFlips(link.playerUuid, [
      { itemTag: data.itemTag.toUpperCase(), itemName: data.itemName ?? null, amount: data.amount, buyPrice: data.buyPrice, sellPrice: data.sellPrice, soldAt: Date.parse(data.soldAt) },
    ]);
    return { stored: stored > 0 };
  },

  async 'names.upload'(ctx, data) {
    // Only verified players report names. A player's own name is a fact; a name for anyone else
    // is a hint that never replaces a confirmed name nor takes one over (issue 21).
    const link = await requireLink(ctx);
    const players = data.players.map((p) => ({ playerUuid: uuid(p.uuid), name: p.name }));
    const now = ctx.clock.now();
    await ctx.store.playerNames.record(players.filter((p) => p.playerUuid === link.playerUuid), 'self', now);
    await ctx.store.playerNames.record(players.filter((p) => p.playerUuid !== link.playerUuid), 'mod', now);
    return { count: data.players.length };
  },

  async 'lowball.create'(ctx, data) {
    const link = await requireLink(ctx);
    let item;
    try {
      item = decodeAuctionItem(data.item, { maxBytes: 256 * 1024 });
    } catch (err) {
      if (err instanceof ItemDecodeError) throw new ModError('invalid_item', `The item could not be read: ${err.message}`, { reason: err.reason });
      throw err;
    }
    const now = ctx.clock.now();
    const offer = await ctx.store.lowball.create({
      offerId: randomUUID(),
      accountId: ctx.account.id,
      playerUuid: link.playerUuid,
      itemTag: item.tag,
      itemName: item.name,
      itemCount: item.count,
      askingPrice: data.askingPrice,
      filters: offerFilters(item),
      auctionJson: offerAuctionJson(item, data.askingPrice, link.playerUuid, now),
      lore: item.lore.length ? item.lore.join('\n') : null,
      createdAt: now,
    });
    return lowballView(offer);
  },

  async 'apikey.create'(ctx, data) {
    const link = await requireLink(ctx);
    const { key, token } = await ctx.store.apiKeys.create({
      playerUuid: link.playerUuid,
      profileUuid: data.profileUuid ? uuid(data.profileUuid) : null,
      now: ctx.clock.now(),
    });
    return { id: key.id, key: token, playerUuid: key.playerUuid, profileUuid: key.profileUuid, createdAt: iso(key.createdAt), expiresAt: iso(key.expiresAt) };
  },

  async 'apikey.list'(ctx) {
    const link = await requireLink(ctx);
    const now = ctx.clock.now();
    return (await ctx.store.apiKeys.list(link.playerUuid)).map((k) => ({
      id: k.id,
      profileUuid: k.profileUuid,
      createdAt: iso(k.createdAt),
      expiresAt: iso(k.expiresAt),
      status: k.revokedAt !== null ? 'revoked' : k.expiresAt <= now ? 'expired' : 'active',
    }));
  },

  async 'apikey.revoke'(ctx, data) {
    const link = await requireLink(ctx);
    // Only keys of the linked player: another player's key id is "not found".
    const own = (await ctx.store.apiKeys.list(link.playerUuid)).find((k) => k.id === data.id);
    if (!own || !(await ctx.store.apiKeys.revoke(data.id, ctx.clock.now()))) throw new ModError('not_found', `No active API key ${data.id} of yours`);
    return { id: data.id, revoked: true };
  },
};
