/**
 * Where alerts go and what they look like there (issue 47). The target types are the established
 * service's integers (NotificationTarget.type, its client's generated TargetType 0-6 and NotifyWhen
 * 0-2; its client also sends the names, e.g. `DiscordWebhook`, `InGame`, `AfterFail`); skymarket
 * delivers WEBHOOK (a signed HTTPS POST), DISCORD_WEBHOOK (an embed), IN_GAME (the mod channel) and
 * its own LIVE_FEED (100: the account's `alert` topic of the live feed). Pure: the signature is
 * HMAC-SHA256 (node:crypto, no I/O).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Tier } from '../tiers.ts';
import type { AlertDraft } from './index.ts';

export const TARGET_TYPES = { UNKNOWN: 0, WEBHOOK: 1, DISCORD: 2, DISCORD_WEBHOOK: 3, FIREBASE: 4, EMAIL: 5, IN_GAME: 6, LIVE_FEED: 100 } as const;
export type TargetTypeName = keyof typeof TARGET_TYPES;
/** The types skymarket delivers to; the others are refused with a problem body. */
export const DELIVERABLE_TYPES: readonly number[] = [TARGET_TYPES.WEBHOOK, TARGET_TYPES.DISCORD_WEBHOOK, TARGET_TYPES.IN_GAME, TARGET_TYPES.LIVE_FEED];
/** Types whose `target` says nothing (the account is the address): stored empty, answered null. */
export const ADDRESSLESS_TYPES: readonly number[] = [TARGET_TYPES.IN_GAME, TARGET_TYPES.LIVE_FEED];
/** NotifyWhen: NEVER (paused), AFTER_FAIL (only when the account's other targets failed), ALWAYS. */
export const NOTIFY_WHEN = { NEVER: 0, AFTER_FAIL: 1, ALWAYS: 2 } as const;

/** The names the established client sends instead of the integers (its NotificationType and NotificationWhen), and skymarket's own. */
const TYPE_NAMES: Record<string, number> = {
  UNKNOWN: 0,
  WEBHOOK: 1,
  DISCORD: 2,
  DISCORDWEBHOOK: 3,
  DISCORD_WEBHOOK: 3,
  FIREBASE: 4,
  EMAIL: 5,
  INGAME: 6,
  IN_GAME: 6,
  LIVEFEED: 100,
  LIVE_FEED: 100,
};
const WHEN_NAMES: Record<string, number> = { NEVER: 0, AFTERFAIL: 1, AFTER_FAIL: 1, ALWAYS: 2 };

/** A target type given as its integer or its name (any case); undefined: neither. */
export function targetTypeOf(raw: number | string): number | undefined {
  if (typeof raw === 'number') return Number.isInteger(raw) ? raw : undefined;
  if (/^\d{1,3}$/.test(raw)) return Number(raw);
  return TYPE_NAMES[raw.toUpperCase()];
}

/** NotifyWhen given as its integer or its name (any case); undefined: neither. */
export function notifyWhenOf(raw: number | string): number | undefined {
  if (typeof raw === 'number') return Number.isInteger(raw) ? raw : undefined;
  if (/^\d$/.test(raw)) return Number(raw);
  return WHEN_NAMES[raw.toUpperCase()];
}

/** How long an IN_GAME alert waits for a mod session of its account before it fails. */
export const IN_GAME_HOLD_MS = 24 * 3_600_000;
/** How long one mod channel holds a claimed IN_GAME delivery before another may send it (a crash mid-send). */
export const IN_GAME_LEASE_MS = 30_000;

/** Per tier: subscriptions, targets, and alerts delivered per hour (docs/alerts.md). */
export const ALERT_LIMITS: Record<Tier, { subscriptions: number; targets: number; perHour: number }> = {
  free: { subscriptions: 3, targets: 2, perHour: 30 },
  starter_premium: { subscriptions: 25, targets: 5, perHour: 300 },
  premium: { subscriptions: 100, targets: 10, perHour: 1500 },
  premium_plus: { subscriptions: 500, targets: 20, perHour: 6000 },
};

/** Delays before the 2nd, 3rd … attempt; after the last the delivery fails and its target is marked failing. */
export const RETRY_DELAYS_MS = [2_000, 10_000, 60_000, 5 * 60_000, 30 * 60_000] as const;

/** When the next attempt after `attempts` failed ones is due; null: give up. */
export function nextAttemptAt(attempts: number, now: number): number | null {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  return delay === undefined ? null : now + delay;
}

/** The JSON an alert is as a webhook body and a live-feed event (docs/alerts.md). */
export interface AlertBody {
  id: string;
  subscriptionId: number;
  kind: AlertDraft['kind'];
  at: string;
  title: string;
  tag: string;
  itemName: string | null;
  price: number;
  reference: number | null;
  auctionUuid: string | null;
  link: string | null;
  test?: true;
}

/** The link of an alert: the auction's page where there is one, else the item's or product's page. */
export function alertLink(draft: Pick<AlertDraft, 'kind' | 'tag' | 'auctionUuid'>, linkBase: string): string | null {
  if (!linkBase) return null;
  const base = linkBase.replace(/\/+$/, '');
  if (draft.kind === 'bazaar_price' || draft.kind === 'bazaar_median') return `${base}/bazaar/${encodeURIComponent(draft.tag)}`;
  return `${base}/item/${encodeURIComponent(draft.tag)}${draft.auctionUuid ? `?auction=${draft.auctionUuid}` : ''}`;
}

export function alertBody(draft: AlertDraft, linkBase: string): AlertBody {
  return {
    id: draft.key,
    subscriptionId: draft.subscriptionId,
    kind: draft.kind,
    at: new Date(draft.at).toISOString(),
    title: draft.title,
    tag: draft.tag,
    itemName: draft.itemName,
    price: draft.price,
    reference: draft.reference,
    auctionUuid: draft.auctionUuid,
    link: alertLink(draft, linkBase),
  };
}

/** A Discord webhook message: one embed with the item, the price and the link. */
export function discordMessage(body: AlertBody): Record<string, unknown> {
  const fields = [{ name: 'Price', value: body.price.toLocaleString('en-US', { maximumFractionDigits: 1 }), inline: true }];
  if (body.reference !== null) fields.push({ name: 'Compared with', value: body.reference.toLocaleString('en-US', { maximumFractionDigits: 1 }), inline: true });
  fields.push({ name: 'Item', value: body.itemName ? `${body.itemName} (${body.tag})` : body.tag, inline: false });
  if (body.auctionUuid) fields.push({ name: 'Auction', value: `\`/viewauction ${body.auctionUuid}\``, inline: false });
  return {
    username: 'skymarket',
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: body.title.slice(0, 256),
        ...(body.link ? { url: body.link } : {}),
        color: body.test ? 0x888888 : 0x2f9e44,
        fields,
        timestamp: body.at,
        footer: { text: `skymarket alert ${body.id}`.slice(0, 2048) },
      },
    ],
  };
}

/**
 * An alert as the mod shows it in chat (docs/mod-protocol.md, `writeToChat`): one line of text
 * with the game's § colour codes, a command run on click (the auction, else the item's page link),
 * and a hover text.
 */
export function chatLine(body: AlertBody): { text: string; onClick: string | null; hover: string } {
  const price = body.price.toLocaleString('en-US', { maximumFractionDigits: 1 });
  const hover = [body.itemName ? `${body.itemName} (${body.tag})` : body.tag, `Price: ${price}`];
  if (body.reference !== null) hover.push(`Compared with: ${body.reference.toLocaleString('en-US', { maximumFractionDigits: 1 })}`);
  const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f§]/g, '');
  return {
    text: `§6[skymarket]§r ${clean(body.title).slice(0, 200)}`,
    onClick: body.auctionUuid ? `/viewauction ${body.auctionUuid}` : body.link,
    hover: hover.map(clean).join('\n'),
  };
}

/** Headers a signed webhook carries (docs/alerts.md tells a receiver how to verify). */
export const SIGNATURE_HEADER = 'x-skymarket-signature';
export const TIMESTAMP_HEADER = 'x-skymarket-timestamp';
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** `v1=` + hex HMAC-SHA256 over `<timestamp>.<body>` with the target's secret. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute and compare in constant time (and check the timestamp is recent). */
export function verifySignature(secret: string, timestamp: string, body: string, header: string): boolean {
  const expected = Buffer.from(signature(secret, timestamp, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export const MAX_TARGET_LENGTH = 500;

/**
 * Why a target cannot be stored (null: it can). DISCORD_WEBHOOK: on the allow-list of Discord
 * hosts; WEBHOOK: an https URL without credentials whose host is not a private or reserved
 * address literal nor a local name (its resolved addresses are checked again at each delivery).
 * `allowPrivate` is the test seam (ALERT_WEBHOOK_PRIVATE_OK): http and private hosts pass.
 */
export function targetProblem(type: number, target: string, discordHosts: readonly string[], allowPrivate: boolean, isBlocked: (ip: string) => boolean): string | null {
  if (target.length > MAX_TARGET_LENGTH) return `A target is at most ${MAX_TARGET_LENGTH} characters.`;
  if (!DELIVERABLE_TYPES.includes(type)) return `Target type ${type} is not delivered by skymarket; use 1 (WEBHOOK), 3 (DISCORD_WEBHOOK), 6 (IN_GAME) or 100 (LIVE_FEED).`;
  if (ADDRESSLESS_TYPES.includes(type)) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'The target has to be a URL.';
  }
  if (url.username || url.password) return 'A webhook URL may not carry credentials.';
  if (type === TARGET_TYPES.DISCORD_WEBHOOK) {
    const allowed = discordHosts.some((entry) => (entry.includes('://') ? url.origin === entry : url.protocol === 'https:' && url.port === '' && (url.hostname === entry || url.hostname.endsWith(`.${entry}`))));
    return allowed ? null : 'The Discord webhook URL is not on an allowed host (EXPORT_WEBHOOK_HOSTS).';
  }
  if (allowPrivate) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'A webhook has to be an http(s) URL.';
  if (url.protocol !== 'https:') return 'A webhook has to be an https URL.';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const literal = /^[\d.]+$/.test(host) || host.includes(':');
  if (literal && isBlocked(host)) return 'The webhook points at a private, loopback, link-local or reserved address.';
  if (!literal && (host === 'localhost' || /\.(localhost|local|internal|lan|home\.arpa)$/.test(host) || !host.includes('.'))) return 'The webhook host is a local name.';
  return null;
}
