/**
 * The OpenAPI 3.1 document, generated from every route's TypeBox schemas, served at
 * /api/openapi.json, with an interactive page at /api/docs. The generated document is then
 * completed the way the established service's document reads (`completeDocument`).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { FILTER_NAMES, MAX_ALTERNATIVES, MAX_FILTERS } from '../domain/filters.ts';
import { VERSION } from '../version.ts';
import { ProblemSchema } from './problem.ts';
import { SECURITY_SCHEMES } from './auth.ts';
import { DOCS_CSP } from './security-headers.ts';

/** Route schema key: the route takes item filters, declared as a deepObject map of this name (`query`, `filters` on the analysis). */
const FILTER_MAP = 'x-filter-map';

/** Spread into a route schema that reads item filters from its query string. */
export function filterMap(name: 'query' | 'filters'): Record<typeof FILTER_MAP, string> {
  return { [FILTER_MAP]: name };
}

/** What a person reading /api/docs needs to write filters: where they go, their value syntax, every known name. */
export const FILTER_DOCUMENTATION =
  'Item filters, name → value. Send them as plain query parameters (`?Rarity=LEGENDARY&Stars=5`) or in this deepObject ' +
  '(`query[Rarity]=LEGENDARY`, `filters[Rarity]=LEGENDARY`). Names are case-insensitive; `t` is ignored, empty values are skipped; ' +
  `at most ${MAX_FILTERS}. An unknown name is 400 \`unknown_filter\`, a malformed value 400 naming the filter. ` +
  `Values: numbers \`5\` (k/m suffixes allowed), ranges \`1-5\`, \`>5\`, \`<5\`, \`>=5\`, \`<=5\`, \`5-\` (more than 5), \`any\` (more than 0), \`none\` (0), ` +
  `alternatives \`a|b|c\` (at most ${MAX_ALTERNATIVES}); yes/no filters \`true\`; EndBefore, EndAfter, ItemCreatedBefore, ItemCreatedAfter unix seconds; ` +
  'Rarity a tier name or `any`; Reforge a reforge name, `Any` or `None`; Enchantment an enchantment name or `None` (with EnchantLvl); ' +
  'Seller a 32-hex uuid or a player name. ' +
  `Known names: ${FILTER_NAMES.join(', ')}; ` +
  'and one numeric filter per enchantment (`sharpness=5`, `ultimate_wise=1-5`), per attribute (`mana_pool=1-5`) and per gem slot (`ruby0Gem=FINE`, `combat0GemType=JASPER`).';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { default?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}
interface Operation {
  parameters?: Parameter[];
  security?: Array<Record<string, string[]>>;
  [FILTER_MAP]?: string;
}

/**
 * Completes the generated document: parameters with a default are not required (the server
 * fills them in); routes that take filters declare their map (`x-filter-map`); query
 * credentials are declared as parameters too, not only as security schemes.
 */
export function completeDocument<T extends object>(doc: T): T {
  const paths = (doc as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  for (const ops of Object.values(paths)) {
    for (const op of Object.values(ops) as Operation[]) {
      if (typeof op !== 'object' || op === null) continue;
      const parameters = op.parameters ?? [];
      for (const p of parameters) if (p.schema?.default !== undefined) p.required = false;
      const map = op[FILTER_MAP];
      delete op[FILTER_MAP];
      if (map) {
        parameters.push({
          name: map,
          in: 'query',
          required: false,
          style: 'deepObject',
          explode: true,
          schema: { type: 'object', additionalProperties: { type: 'string' } },
          description: FILTER_DOCUMENTATION,
        });
      }
      for (const scheme of (op.security ?? []).flatMap((s) => Object.keys(s))) {
        const declared = SECURITY_SCHEMES[scheme as keyof typeof SECURITY_SCHEMES];
        if (declared?.type !== 'apiKey' || declared.in !== 'query') continue;
        if (parameters.some((p) => p.in === 'query' && p.name === declared.name)) continue;
        parameters.push({ name: declared.name, in: 'query', required: false, schema: { type: 'string' }, description: declared.description });
      }
      if (parameters.length) op.parameters = parameters;
    }
  }
  return doc;
}

export const openapiPlugin = fp(
  async function openapi(app: FastifyInstance) {
    app.addSchema(ProblemSchema);
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'skymarket',
          version: VERSION,
          description:
            'Market data for Hypixel SkyBlock: auction house, bazaar, crafting, flips and player data. ' +
            'Errors are RFC 9457 problem details. Responses are also available as text/json and text/plain.',
          license: { name: 'MIT', identifier: 'MIT' },
        },
        tags: [{ name: 'operations', description: 'Health, version and service metadata' }],
        components: { securitySchemes: SECURITY_SCHEMES },
      },
      // Shared schemas keep their $id as the component name (components/schemas/Problem).
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
      transformObject: (document) => ('openapiObject' in document ? completeDocument(document.openapiObject) : document.swaggerObject),
    });
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true },
      // The page's own policy (security-headers.ts), on every answer of the docs routes.
      staticCSP: DOCS_CSP,
    });
    app.get('/api/openapi.json', { schema: { hide: true }, config: { cache: 60 } }, async () => app.swagger());
  },
  { name: 'skymarket-openapi' },
);
