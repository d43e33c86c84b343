/**
 * The one `itemTag` path parameter every route shares (DESIGN §4): its schema for the
 * OpenAPI document and its parser. A malformed tag is 400 `invalid_tag`, a well-formed tag
 * the route does not know is 404 `item_not_found`, on every route.
 *
 * The schema carries no `pattern`: schema validation would answer a generic
 * `invalid_parameters` 400, and the rule is one slug everywhere, so the parser checks it.
 */
import { Type, type Static } from 'typebox';
import { isValidTag, normalizeTag, TAG_PATTERN_SOURCE } from '../domain/tags.ts';
import { badRequest, HttpProblem, notFound } from './problem.ts';

export const ItemTag = Type.String({
  description:
    `item tag, case-insensitive (answers carry the canonical upper-case tag), e.g. HYPERION, PET_ENDER_DRAGON, ENCHANTMENT_ULTIMATE_WISE_5; ` +
    `syntax ${TAG_PATTERN_SOURCE}: a malformed tag is 400 \`invalid_tag\`, an unknown one 404 \`item_not_found\``,
});

export const ItemTagParams = Type.Object({ itemTag: ItemTag });
export type ItemTagParams = Static<typeof ItemTagParams>;

/** A tag parameter: validated (400 `invalid_tag`), canonical upper case. */
export function parseItemTag(raw: string): string {
  if (!isValidTag(raw)) {
    throw badRequest('invalid_tag', `The item tag \`${String(raw).slice(0, 80)}\` is not valid (letters, digits and _:;- only, at most 64).`);
  }
  return normalizeTag(raw);
}

/** The 404 for a well-formed tag the route knows nothing of. */
export function itemNotFound(tag: string, detail = `could not find the item with the tag \`${tag}\``): HttpProblem {
  return notFound('item_not_found', detail);
}

/** The longest search accepted: item names run to about 40 characters. */
export const MAX_SEARCH_LENGTH = 64;

export const SearchTerm = Type.String({
  description: `what to look for: part of a name, a tag, a NEU id or initials; 1–${MAX_SEARCH_LENGTH} characters, no control characters (400 \`invalid_search\` otherwise)`,
});

/** A search term: trimmed, non-empty, at most MAX_SEARCH_LENGTH characters, no control characters. */
export function parseSearchTerm(raw: string): string {
  const term = String(raw).trim();
  if (term === '') throw badRequest('invalid_search', 'The search term is empty.');
  if (term.length > MAX_SEARCH_LENGTH) throw badRequest('invalid_search', `The search term is longer than ${MAX_SEARCH_LENGTH} characters.`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(term)) throw badRequest('invalid_search', 'The search term holds control characters.');
  return term;
}

const ZONELESS = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Parses an ISO-8601 date or date-time (UTC when no offset is given) to epoch ms; 400 when malformed. */
export function parseTime(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const text = value.trim().replace(' ', 'T');
  const ms = ISO_LIKE.test(text) ? Date.parse(ZONELESS.test(text) ? `${text}Z` : text) : NaN;
  if (!Number.isFinite(ms)) {
    throw badRequest('invalid_date', `${name} must be an ISO-8601 date or date-time such as 2026-11-20T12:00:00Z, got '${value}'.`);
  }
  return ms;
}
