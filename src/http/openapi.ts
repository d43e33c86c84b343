/**
 * The OpenAPI 3.1 document, generated from every route's TypeBox schemas, served at
 * /api/openapi.json, with an interactive page at /api/docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { VERSION } from '../version.ts';
import { ProblemSchema } from './problem.ts';
import { SECURITY_SCHEMES } from './auth.ts';

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
    });
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true },
    });
    app.get('/api/openapi.json', { schema: { hide: true }, config: { cache: 60 } }, async () => app.swagger());
  },
  { name: 'skymarket-openapi' },
);
