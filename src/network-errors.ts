/**
 * Network failures in words an operator can act on. Node and undici report a failed request
 * as `TypeError: fetch failed` or `Error: getaddrinfo ENOTFOUND host`, with the useful part
 * (the system error code, the host, the port) somewhere down the `cause` chain; this walks
 * the chain and says what happened: the host could not be resolved, the connection was
 * refused, a timeout, a certificate problem. Pure: no I/O.
 */

interface SystemErrorLike {
  code?: unknown;
  hostname?: unknown;
  host?: unknown;
  address?: unknown;
  port?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The first error in `err`'s cause chain (itself included) that carries a string `code`. */
function withCode(err: unknown): SystemErrorLike | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const e = current as SystemErrorLike;
    if (typeof e.code === 'string') return e;
    current = e.cause;
  }
  return undefined;
}

/** The innermost message of the cause chain (the most specific one). */
function innermostMessage(err: unknown): string {
  let message = err instanceof Error ? err.message : String(err);
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const e = current as SystemErrorLike;
    if (typeof e.message === 'string' && e.message) message = e.message;
    current = e.cause;
  }
  return message;
}

const TLS_CODES = /^(CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|ERR_TLS|ERR_SSL|HOSTNAME_MISMATCH|ERR_TLS_CERT)/;

/**
 * One phrase for a failed network request, e.g.
 * "the host api.hypixel.net could not be resolved (ENOTFOUND)" or
 * "127.0.0.1:9 refused the connection (ECONNREFUSED)". `host` names the target when the
 * error itself does not (undici's connect errors carry no host name).
 */
export function describeNetworkError(err: unknown, host?: string): string {
  const e = withCode(err);
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const name = typeof e?.hostname === 'string' ? e.hostname : typeof e?.host === 'string' ? e.host : host;
  const address = typeof e?.address === 'string' ? `${e.address}${typeof e.port === 'number' ? `:${e.port}` : ''}` : name;
  switch (code) {
    case 'ENOTFOUND':
      return `the host ${name ?? '(unknown)'} could not be resolved (ENOTFOUND): no network, no DNS, or a misspelt host name`;
    case 'EAI_AGAIN':
      return `the host ${name ?? '(unknown)'} could not be resolved right now (EAI_AGAIN): DNS did not answer; no network?`;
    case 'ECONNREFUSED':
      return `${address ?? 'the server'} refused the connection (ECONNREFUSED): nothing listens there`;
    case 'ECONNRESET':
      return `the connection to ${name ?? 'the server'} was reset (ECONNRESET)`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connecting to ${name ?? 'the server'} timed out (${code})`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `${name ?? 'the server'} stopped answering (${code})`;
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return `${name ?? 'the server'} is unreachable from this machine (${code}): no route to it`;
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `the connection to ${name ?? 'the server'} broke (${code})`;
    default:
      if (code && TLS_CODES.test(code)) return `the TLS certificate of ${name ?? 'the server'} was not accepted (${code})`;
      return code ? `${innermostMessage(err)} (${code})` : innermostMessage(err);
  }
}

/** Whether the failure says this machine cannot reach the network or resolve names (offline). */
export function looksOffline(err: unknown): boolean {
  const code = withCode(err)?.code;
  return code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH';
}

// Connection-level failures: the server is down, restarting or out of connections. PostgreSQL
// SQLSTATE classes 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300
// (too many connections); node's socket codes; pg's messages for a dropped or slow connection.
const UNAVAILABLE_CODES = /^(08\d{3}|57P0[123]|53300|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/;
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i;

/** Whether a database call failed because the server could not be reached (an outage), not because of the query. */
export function isUnavailable(err: unknown): boolean {
  const code = withCode(err)?.code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) return true;
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const message = (current as SystemErrorLike).message;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    current = (current as SystemErrorLike).cause;
  }
  return false;
}
