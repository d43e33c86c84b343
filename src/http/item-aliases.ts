/**
 * Aliases on every `{itemTag}` route: before validation, an `itemTag` parameter that names an
 * item by another name (a NEU id such as `ENDER_DRAGON;4`, a display name such as
 * `aspect of the end`, a tag in any case) is replaced by the canonical tag, so each route answers
 * for the canonical tag and keeps its own rules (400 `invalid_tag`, 404 `item_not_found`).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface ItemAliasOptions {
  /** the canonical tag an alias names, undefined when it names none */
  resolve(raw: string): string | undefined;
}

/** Aliases longer than this are not looked up (the parameter's own check answers them). */
const MAX_ALIAS_LENGTH = 128;

export const itemAliasesPlugin = fp(
  async (app: FastifyInstance, options: ItemAliasOptions) => {
    app.addHook('preValidation', async (request) => {
      const params = request.params as Record<string, unknown> | undefined;
      const raw = params?.['itemTag'];
      if (typeof raw !== 'string' || raw.length > MAX_ALIAS_LENGTH) return;
      const tag = options.resolve(raw);
      if (tag !== undefined) params!['itemTag'] = tag;
    });
  },
  { name: 'item-aliases' },
);
