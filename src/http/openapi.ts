/**
 * The OpenAPI 3.1 document, generated from every route's TypeBox schemas, served at
 * /api/openapi.json, with an interactive page at /api/docs. The generated document is then
 * completed the way the established service's document reads (`completeDocument`).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { filterParameters } from '../domain/filter-options.ts';
import { MAX_ALTERNATIVES, MAX_FILTER_VALUE_LENGTH, MAX_FILTERS } from '../domain/filters.ts';
import { VERSION } from '../version.ts';
import { ProblemSchema } from './problem.ts';
import { SECURITY_SCHEMES } from './auth.ts';
import { DOCS_CSP } from './security-headers.ts';

/** Route schema key: the route reads item filters from its query string (replaced by the filter parameters). */
const ITEM_FILTERS = 'x-item-filters';

/** Spread into a route schema that reads item filters from its query string. */
export function takesItemFilters(): Record<typeof ITEM_FILTERS, true> {
  return { [ITEM_FILTERS]: true };
}

/** Value syntax of the numeric filters, on each of their parameters. */
const NUMBER_SYNTAX =
  'A number (`5`, k/m/b suffixes allowed) or a condition: a range `1-5`, `>5`, `<5`, `>=5`, `<=5`, `5-` (more than 5), ' +
  `\`any\` (more than 0), \`none\` (0), or alternatives \`a|b|c\` (at most ${MAX_ALTERNATIVES}).`;

/**
 * What every route with filters says about them, besides the filter parameters it declares: the
 * engine's rules and the filters it builds from game data, which are too many to declare one by one.
 */
export const FILTER_DOCUMENTATION =
  'Item filters: the `Rarity`, `Stars`, `PetLevel` … parameters; names are case-insensitive, empty values are skipped, ' +
  `at most ${MAX_FILTERS}. An unknown name is 400 \`unknown_filter\`, a malformed value 400 naming the filter. ` +
  'Besides the declared ones, these are plain query parameters too: one numeric filter per enchantment (`sharpness=5`, `ultimate_wise=1-5`), ' +
  'per attribute (`mana_pool=1-5`), per rune (`MusicRune=3`) and per gem slot (`ruby0Gem=FINE`, `combat0GemType=JASPER`). ' +
  'The deepObject forms `query[Rarity]=LEGENDARY` and `filters[Rarity]=LEGENDARY` are read as plain filters.';

/** The component name of a filter's parameter. */
const filterComponent = (name: string) => `filter.${name}`;

/** One OpenAPI parameter per fixed filter of the engine, typed by the values it takes. */
function filterParameterComponents(): Record<string, Parameter> {
  const out: Record<string, Parameter> = {};
  for (const f of filterParameters()) {
    let schema: Parameter['schema'];
    let description = f.description;
    if (f.values) schema = { type: 'string', enum: [...f.values] };
    else if (f.kind === 'boolean') schema = { type: 'boolean' };
    else if (f.kind === 'date') schema = { type: 'integer', minimum: 0, maximum: 999_999_999_999, description: 'unix seconds' };
    else if (f.kind === 'number') {
      schema = { anyOf: [{ type: 'number', minimum: 0 }, { type: 'string', maxLength: MAX_FILTER_VALUE_LENGTH }] };
      description += `. ${NUMBER_SYNTAX}`;
    } else schema = { type: 'string', maxLength: MAX_FILTER_VALUE_LENGTH };
    out[filterComponent(f.name)] = { name: f.name, in: 'query', required: false, schema, description };
  }
  return out;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { default?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}
type ParameterOrRef = Parameter | { $ref: string };
interface Operation {
  operationId?: string;
  description?: string;
  parameters?: ParameterOrRef[];
  security?: Array<Record<string, string[]>>;
  [ITEM_FILTERS]?: boolean;
}

/**
 * A stable, readable operation id from the method and the path: `GET /api/item/price/{itemTag}/bin`
 * is `getItemPriceByItemTagBin`. Generated clients name their functions after it.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api')
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment)?.[1];
      return param ? ['by', param] : segment.split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * Completes the generated document: every operation gets an `operationId` (unless its route names
 * one); parameters with a default are not required (the server fills them in); routes that take
 * filters declare each filter of the engine as an optional parameter (shared components); query
 * credentials are declared as parameters too, not only as security schemes.
 */
export function completeDocument<T extends object>(doc: T): T {
  const document = doc as { paths?: Record<string, Record<string, unknown>>; components?: { parameters?: Record<string, Parameter> } };
  const filters = filterParameterComponents();
  let filtersUsed = false;
  for (const [path, ops] of Object.entries(document.paths ?? {})) {
    for (const [method, value] of Object.entries(ops)) {
      if (typeof value !== 'object' || value === null) continue;
      const op = value as Operation;
      op.operationId ??= operationIdOf(method, path);
      const parameters = op.parameters ?? [];
      const ownQuery = new Set(parameters.flatMap((p) => ('name' in p && p.in === 'query' ? [p.name.toLowerCase()] : [])));
      for (const p of parameters) if ('schema' in p && p.schema?.default !== undefined) p.required = false;
      if (op[ITEM_FILTERS]) {
        // A filter named like one of the route's own query parameters could not be sent: the route reads that key itself.
        for (const [component, filter] of Object.entries(filters)) {
          if (!ownQuery.has(filter.name.toLowerCase())) parameters.push({ $ref: `#/components/parameters/${component}` });
        }
        op.description = op.description ? `${op.description}\n\n${FILTER_DOCUMENTATION}` : FILTER_DOCUMENTATION;
        filtersUsed = true;
      }
      delete op[ITEM_FILTERS];
      for (const scheme of (op.security ?? []).flatMap((s) => Object.keys(s))) {
        const declared = SECURITY_SCHEMES[scheme as keyof typeof SECURITY_SCHEMES];
        if (declared?.type !== 'apiKey' || declared.in !== 'query') continue;
        if (parameters.some((p) => 'name' in p && p.in === 'query' && p.name === declared.name)) continue;
        parameters.push({ name: declared.name, in: 'query', required: false, schema: { type: 'string' }, description: declared.description });
      }
      if (parameters.length) op.parameters = parameters;
    }
  }
  if (filtersUsed) document.components = { ...document.components, parameters: { ...document.components?.parameters, ...filters } };
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
            'Errors are RFC 9457 problem details. Responses are also available as text/json and text/plain.\n\n' +
            'The software is open source under the MIT licence (below). The data this deployment serves is under the terms ' +
            `its operator sets: ${app.context.config.dataTerms}`,
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
