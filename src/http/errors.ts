/**
 * The error model: every client mistake becomes a 4xx problem body; anything else is
 * a 500 problem that names a reference, never a stack trace. Fastify's own errors
 * (bad JSON, body too large, unsupported media type, validation) are mapped here.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_CODES } from 'node:http';
import { isUnavailable } from '../network-errors.ts';
import { HttpProblem, PROBLEM_CONTENT_TYPE, problemBody } from './problem.ts';
import { NOSNIFF_HEADERS } from './security-headers.ts';
import { FilterError } from '../domain/filters.ts';
import { UnknownTagError } from '../domain/tags.ts';

/** Seconds a client is asked to wait during a database outage, and ms between the checks that end it. */
const OUTAGE_RETRY_SECONDS = 5;
const OUTAGE_PROBE_MS = 1000;

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/** Fastify error codes and the slug each becomes. */
const FASTIFY_SLUGS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty_body',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_content_length',
  FST_ERR_CTP_EMPTY_TYPE: 'missing_content_type',
  FST_ERR_CTP_INVALID_TYPE: 'invalid_content_type',
  FST_ERR_BAD_URL: 'bad_url',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
  FST_ERR_ASYNC_CONSTRAINT: 'bad_request',
};

export function sendProblem(
  reply: FastifyReply,
  status: number,
  slug: string,
  detail: string,
  extensions: Record<string, unknown> = {},
): FastifyReply {
  // nosniff here too: errors raised before routing (a malformed URL) skip the onRequest hooks.
  return reply
    .code(status)
    .headers(NOSNIFF_HEADERS)
    .type(PROBLEM_CONTENT_TYPE)
    .serializer(JSON.stringify)
    .send(problemBody(status, slug, detail, instanceOf(reply.request), extensions));
}

/** Characters of a request path a problem echoes at most (`instance`, `detail`): a long URL is not sent back whole. */
const ECHO_MAX = 100;

/** `text` cut to ECHO_MAX characters (then ending in `…`). */
function echo(text: string): string {
  return text.length <= ECHO_MAX ? text : `${text.slice(0, ECHO_MAX)}…`;
}

function instanceOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return echo(q < 0 ? request.url : request.url.slice(0, q));
}

/** Issues described at most: Ajv stops at the first error, but a union's branches each add theirs. */
const MAX_ISSUES = 10;

/** Groups Ajv issues by the offending field: `{ "query.pageSize": ["must be <= 1000"] }`. */
export function validationErrors(context: string, allIssues: readonly ValidationIssue[]): Record<string, string[]> {
  const prefix = context === 'querystring' ? 'query' : context;
  const issues = allIssues.slice(0, MAX_ISSUES);
  const out: Record<string, string[]> = {};
  // A union of literals fails with one 'const' issue per literal plus an 'anyOf' issue: fold them into one line.
  const constAlternatives = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword === 'const') {
      const list = constAlternatives.get(issue.instancePath) ?? [];
      list.push((issue.params as { allowedValue?: unknown }).allowedValue);
      constAlternatives.set(issue.instancePath, list);
    }
  }
  for (const issue of issues) {
    const alternatives = constAlternatives.get(issue.instancePath);
    if (alternatives && alternatives.length > 1 && (issue.keyword === 'const' || issue.keyword === 'anyOf')) {
      if (issue.keyword === 'anyOf') {
        const key = fieldKey(prefix, issue);
        (out[key] ??= []).push(`must be one of: ${alternatives.join(', ')}`);
      }
      continue;
    }
    const key = fieldKey(prefix, issue);
    let message = issue.message ?? 'is invalid';
    const allowed = (issue.params as { allowedValues?: unknown[] }).allowedValues;
    if (allowed) message = `must be one of: ${allowed.join(', ')}`;
    if ((issue.params as { additionalProperty?: string }).additionalProperty) message = 'is not allowed';
    (out[key] ??= []).push(message);
  }
  return out;
}

/** `query.pageSize`, `body.items.3.name`: where the issue is, including a missing or extra property. */
function fieldKey(prefix: string, issue: ValidationIssue): string {
  let path = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = (issue.params as { missingProperty?: string }).missingProperty;
  const extra = (issue.params as { additionalProperty?: string }).additionalProperty;
  if (missing) path = path ? `${path}.${missing}` : missing;
  if (extra) path = path ? `${path}.${extra}` : extra;
  return path ? `${prefix}.${path}` : prefix;
}

function describeValidation(errors: Record<string, string[]>): string {
  return Object.entries(errors)
    .map(([field, messages]) => `${field} ${messages.join('; ')}`)
    .join('; ');
}

/** Constructor option for errors raised before routing (malformed URLs). */
export const frameworkErrors: FastifyServerOptions['frameworkErrors'] = (error, _request, reply) => {
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  // Fastify's messages for a bad or over-long URL quote the whole path: say what was wrong instead.
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path parameter is too long'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'The path is not valid: a percent-encoded part does not decode'
        : error.message;
  sendProblem(reply, status, FASTIFY_SLUGS[error.code] ?? 'bad_request', detail);
};

/**
 * Constructor option for errors Node's HTTP parser raises before there is a request (a broken
 * request line, headers too large, a request that took too long): the same problem bodies,
 * written on the socket, which is then closed (as Fastify's own handler does).
 */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, slug, detail] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'The request (headers and body) did not arrive in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'The request headers are too large']
        : [400, 'bad_request', 'The request is not valid HTTP'];
  this.log.debug({ err: { code: err.code, message: err.message } }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(problemBody(status, slug, detail, '/'));
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

/**
 * @fastify/websocket's `errorHandler`: errors on an open socket. What `ws` raises for a client's
 * broken or oversized frame (codes WS_ERR_*, the client already got its close code, e.g. 1009)
 * is the client's fault: a warning without a stack. Anything else is ours: logged as an error.
 */
export function websocketErrorHandler(
  this: FastifyInstance,
  error: Error & { code?: unknown },
  socket: { terminate(): void },
  request: FastifyRequest,
): void {
  if (typeof error.code === 'string' && error.code.startsWith('WS_ERR_')) {
    request.log.warn({ clientFault: { code: error.code, message: error.message }, path: instanceOf(request) }, 'websocket client sent an invalid frame; closed');
  } else {
    request.log.error({ err: error, path: instanceOf(request) }, 'websocket error');
  }
  socket.terminate();
}

export const errorsPlugin = fp(
  async function errors(app: FastifyInstance) {
    // Ahead of the CORS plugin (registered after this one), which answers a request that is not
    // a preflight (no Origin or Access-Control-Request-Method) with a text/plain 400.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'OPTIONS' || (request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined)) {
        done();
        return;
      }
      sendProblem(reply, 400, 'invalid_preflight', 'OPTIONS is answered only as a CORS preflight: send Origin and Access-Control-Request-Method');
    });

    // Ajv coerces "1e309" to Infinity, and "1e20" to an integer past 2^53, and lets both pass its
    // integer checks (and an unbounded maximum); no parameter of ours means either, so refuse them
    // here once for every route.
    // Callback style, and nothing to look at for routes without parameters: no promise per request.
    app.addHook('preHandler', (request, _reply, done) => {
      done(unsafeNumber('query', request.query) ?? unsafeNumber('params', request.params));
    });

    // A database outage is logged once when it starts and once when a ping succeeds again, not per request.
    let probe: NodeJS.Timeout | undefined;
    let down = false;
    let closed = false;
    const outage = {
      begin(err: Error) {
        if (down) return;
        down = true;
        const since = performance.now(); // a duration, on the monotonic timer
        app.log.error({ err: { message: err.message, code: (err as { code?: unknown }).code } }, 'database unavailable: answering 503 until it is back');
        // One ping at a time (a ping may wait for the pool's connection timeout).
        const check = () => {
          app.store.ping().then(
            () => {
              down = false;
              app.log.warn({ outageSeconds: Math.round((performance.now() - since) / 1000) }, 'database available again');
            },
            () => schedule(),
          );
        };
        const schedule = () => {
          if (closed) return;
          probe = setTimeout(check, OUTAGE_PROBE_MS);
          probe.unref();
        };
        schedule();
      },
    };
    app.addHook('onClose', async () => {
      closed = true;
      clearTimeout(probe);
    });

    app.setErrorHandler((error: FastifyError | HttpProblem | FilterError | UnknownTagError, request, reply) => {
      if (error instanceof HttpProblem) {
        reply.headers(error.headers);
        return sendProblem(reply, error.status, error.slug, error.detail, error.extensions);
      }
      if (error instanceof FilterError) {
        // Filters are compiled below the faces (domain/, services/): their error names the filter and why.
        return sendProblem(reply, 400, error.slug, error.message, { filter: error.filter });
      }
      if (error instanceof UnknownTagError) return sendProblem(reply, 404, 'item_not_found', error.message);
      if (error.validation) {
        const errors = validationErrors(error.validationContext ?? 'request', error.validation);
        return sendProblem(reply, 400, 'invalid_parameters', describeValidation(errors), { errors });
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        return sendProblem(reply, status, FASTIFY_SLUGS[error.code] ?? slugForStatus(status), error.message);
      }
      if (isUnavailable(error)) {
        outage.begin(error);
        reply.header('Retry-After', String(OUTAGE_RETRY_SECONDS));
        return sendProblem(reply, 503, 'database_unavailable', `The database cannot be reached right now. Retry in ${OUTAGE_RETRY_SECONDS} s.`);
      }
      request.log.error({ err: error, reqId: request.id }, 'request failed');
      return sendProblem(
        reply,
        500,
        'internal_error',
        `An unexpected error occurred. If it persists, report it with reference ${request.id}.`,
      );
    });

    app.setNotFoundHandler((request, reply) =>
      sendProblem(reply, 404, 'route_not_found', `No route ${request.method} ${instanceOf(request)}`),
    );
  },
  { name: 'skymarket-errors' },
);

/** The 400 problem for the first non-finite or unsafe-integer number among `values`, if any. */
function unsafeNumber(part: 'query' | 'params', values: unknown): HttpProblem | undefined {
  if (!values || typeof values !== 'object') return undefined;
  for (const name in values) {
    const value = (values as Record<string, unknown>)[name];
    // No array or closure per parameter: this runs on every request.
    if (Array.isArray(value) ? value.some(isUnsafeNumber) : isUnsafeNumber(value)) {
      return new HttpProblem(400, 'invalid_parameters', `${part}.${name} must be a finite number (integers within ±2^53)`, {
        errors: { [`${part}.${name}`]: ['must be a finite number (integers within ±2^53)'] },
      });
    }
  }
  return undefined;
}

function isUnsafeNumber(n: unknown): boolean {
  return typeof n === 'number' && (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n)));
}

function slugForStatus(status: number): string {
  switch (status) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 409:
      return 'conflict';
    case 413:
      return 'body_too_large';
    case 415:
      return 'unsupported_media_type';
    case 422:
      return 'unprocessable';
    case 429:
      return 'rate_limited';
    default:
      return 'bad_request';
  }
}
