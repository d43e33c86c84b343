/** Network failures in words: what the health page, the logs and `gamedata sync` say instead of "fetch failed". */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeNetworkError, looksOffline } from '../../src/network-errors.ts';

/** undici's shape: TypeError('fetch failed') with the system error as its cause. */
function fetchFailed(cause: object): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error('x'), cause) });
}

describe('describeNetworkError', () => {
  it('names the host that could not be resolved', () => {
    const err = fetchFailed({ code: 'ENOTFOUND', hostname: 'api.hypixel.net', message: 'getaddrinfo ENOTFOUND api.hypixel.net' });
    assert.equal(describeNetworkError(err), 'the host api.hypixel.net could not be resolved (ENOTFOUND): no network, no DNS, or a misspelt host name');
    assert.equal(looksOffline(err), true);
    // A temporary resolver failure is said as such.
    assert.match(describeNetworkError(fetchFailed({ code: 'EAI_AGAIN', hostname: 'github.com' })), /^the host github\.com could not be resolved right now \(EAI_AGAIN\)/);
  });

  it('uses the given host when the error carries none, and the address of a refused connection', () => {
    assert.equal(describeNetworkError(Object.assign(new Error('connect'), { code: 'ENOTFOUND' }), 'example.org'), 'the host example.org could not be resolved (ENOTFOUND): no network, no DNS, or a misspelt host name');
    const refused = fetchFailed({ code: 'ECONNREFUSED', address: '127.0.0.1', port: 9 });
    assert.equal(describeNetworkError(refused), '127.0.0.1:9 refused the connection (ECONNREFUSED): nothing listens there');
    assert.equal(looksOffline(refused), false);
  });

  it('timeouts, resets, unreachable networks and certificates', () => {
    assert.equal(describeNetworkError(fetchFailed({ code: 'UND_ERR_CONNECT_TIMEOUT' }), 'api.hypixel.net'), 'connecting to api.hypixel.net timed out (UND_ERR_CONNECT_TIMEOUT)');
    assert.equal(describeNetworkError(fetchFailed({ code: 'ECONNRESET' }), 'h'), 'the connection to h was reset (ECONNRESET)');
    assert.equal(describeNetworkError(fetchFailed({ code: 'ENETUNREACH' }), 'h'), 'h is unreachable from this machine (ENETUNREACH): no route to it');
    assert.equal(describeNetworkError(fetchFailed({ code: 'CERT_HAS_EXPIRED' }), 'h'), 'the TLS certificate of h was not accepted (CERT_HAS_EXPIRED)');
  });

  it('falls back to the innermost message (with its code), never just "fetch failed"', () => {
    assert.equal(describeNetworkError(fetchFailed({ message: 'other side closed', code: 'UND_ERR_WEIRD' })), 'other side closed (UND_ERR_WEIRD)');
    assert.equal(describeNetworkError(new TypeError('fetch failed', { cause: new Error('bad port') })), 'bad port');
    assert.equal(describeNetworkError('plain string'), 'plain string');
  });
});
