/**
 * A feed subscription from a query string (SSE, the WebSocket's URL) or a WebSocket `subscribe`
 * message: topics, tags (aliases resolved), variant filters (the filter engine's syntax) and
 * price bounds. Bad input is a 400 problem (a FilterError names its filter).
 */
import { compileFilters, filtersFromQuery } from '../domain/filters.ts';
import { isTopic, parseEventId, TOPICS, type EventId, type Subscription, type Topic } from '../domain/stream-events.ts';
import { parseItemTag } from '../http/params.ts';
import { badRequest, HttpProblem } from '../http/problem.ts';
import type { StreamFeed } from '../services/stream.ts';

/** Query keys that are not filters. */
export const CONTROLS = ['topics', 'tags', 'minPrice', 'maxPrice', 'lastEventId', 'type', 'token', 'apiKey', 'apikey', 'key'];
export const MAX_TAGS = 100;

/**
 * `accountId`: the account the connection authenticated as (an account token); the `alert` topic
 * (that account's alerts, docs/alerts.md) needs one and is only sent when named.
 */
export async function parseSubscription(query: Readonly<Record<string, unknown>>, feed: StreamFeed, accountId?: number): Promise<Subscription> {
  const topics = new Set<Topic>();
  for (const raw of list(query['topics'], 'topics')) {
    if (!isTopic(raw)) throw badRequest('invalid_topic', `The topic \`${raw.slice(0, 40)}\` is not known; topics are ${TOPICS.join(', ')}.`);
    topics.add(raw);
  }
  if (topics.has('alert') && accountId === undefined) {
    throw new HttpProblem(401, 'token_required', 'The `alert` topic carries your account\'s alerts: connect with your account token (Authorization: Bearer <token>).', { message: 'An account token is required for the alert topic.' }, { 'WWW-Authenticate': 'Bearer' });
  }
  const tags = new Set<string>();
  const rawTags = list(query['tags'], 'tags');
  if (rawTags.length > MAX_TAGS) throw badRequest('too_many_tags', `At most ${MAX_TAGS} tags per subscription.`);
  for (const raw of rawTags) tags.add(feed.resolveTag(raw) ?? parseItemTag(raw));
  const minPrice = price(query['minPrice'], 'minPrice');
  const maxPrice = price(query['maxPrice'], 'maxPrice');
  if (minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice) {
    throw badRequest('invalid_price', `minPrice (${minPrice}) is above maxPrice (${maxPrice}).`);
  }
  const filters = filtersFromQuery(stringValues(query), CONTROLS);
  const compiled = Object.keys(filters).length > 0 ? await feed.compileFilters(filters) : compileFilters({});
  return { topics, tags, filter: compiled.names.length > 0 ? compiled.test : undefined, minPrice, maxPrice, accountId };
}

/** The id to resume after: the Last-Event-ID header, else the `lastEventId` parameter; 400 when malformed. */
export function parseResumeId(header: unknown, param: unknown): EventId | undefined {
  const raw = typeof header === 'string' && header !== '' ? header : typeof param === 'string' && param !== '' ? param : undefined;
  if (raw === undefined) return undefined;
  const id = parseEventId(raw.trim());
  if (!id) throw badRequest('invalid_last_event_id', `The event id \`${raw.slice(0, 40)}\` is not one this feed sends (\`<ms>-<seq>-<index>\`).`);
  return id;
}

function list(value: unknown, name: string): string[] {
  if (value === undefined || value === null || value === '') return [];
  const joined = Array.isArray(value) ? value.join(',') : value;
  if (typeof joined !== 'string') throw badRequest('invalid_parameters', `\`${name}\` is a comma-separated list.`);
  return joined
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function price(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > Number.MAX_SAFE_INTEGER) throw badRequest('invalid_price', `\`${name}\` is a number of coins, at least 0.`);
  return n;
}

/** WebSocket messages may carry numbers where a query carries strings; filters read strings. */
function stringValues(query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) out[k] = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
  return out;
}
