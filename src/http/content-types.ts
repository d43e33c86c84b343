/**
 * Content negotiation. Responses: JSON is also served as `text/json` or `text/plain`
 * when the Accept header prefers them (the bytes are the same JSON). Request bodies:
 * `application/json`, `text/json`, `application/json-patch+json` and any
 * `application/*+json` are parsed as JSON.
 */
import accepts from '@fastify/accepts';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PROBLEM_CONTENT_TYPE } from './problem.ts';

const JSON_TYPES = ['application/json', 'text/json', 'text/plain'];
const PROBLEM_TYPES = [PROBLEM_CONTENT_TYPE, 'application/json', 'text/json', 'text/plain'];

export const contentTypesPlugin = fp(
  async function contentTypes(app: FastifyInstance) {
    await app.register(accepts);

    // Same parser (with prototype-poisoning protection) as Fastify's own application/json.
    const jsonParser = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser(['text/json', 'application/json-patch+json'], { parseAs: 'string' }, jsonParser);
    app.addContentTypeParser(/^application\/[\w.+-]+\+json\s*(;.*)?$/i, { parseAs: 'string' }, jsonParser);

    // Callback style: no promise per response.
    app.addHook('onSend', (request, reply, payload, done) => {
      const accept = request.headers.accept;
      // Fast path for the common cases: nothing to negotiate.
      if (accept === undefined || accept === '*/*' || accept === 'application/json') return done(null, payload);
      const current = String(reply.getHeader('content-type') ?? '');
      const isProblem = current.startsWith(PROBLEM_CONTENT_TYPE);
      if (!isProblem && !current.startsWith('application/json')) return done(null, payload);
      const preferred = request.accepts().type(isProblem ? PROBLEM_TYPES : JSON_TYPES);
      if (typeof preferred === 'string' && !current.startsWith(preferred)) {
        reply.header('content-type', `${preferred}; charset=utf-8`);
      }
      done(null, payload);
    });
  },
  { name: 'skymarket-content-types' },
);
