/**
 * Mod session caps (issue 21 item 4): one free token opened 2,000 sessions in 1.4 s and every
 * other client then got 1013. Now each account and each client address has its own cap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { ModClient } from './helpers.ts';

describe('mod session caps', () => {
  let t: TestApp;
  let url: string;
  let tokenA: string;
  let tokenB: string;
  const open: ModClient[] = [];
  before(async () => {
    t = await createTestApp({ env: { MOD_SESSIONS_PER_ACCOUNT: '3', MOD_SESSIONS_PER_IP: '6', MOD_SESSIONS_MAX: '100' } });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address.replace('http', 'ws')}/modsocket`;
    tokenA = (await t.store.accounts.create({ tier: 'free', now: t.clock.now() })).token;
    tokenB = (await t.store.accounts.create({ tier: 'free', now: t.clock.now() })).token;
  });
  after(async () => {
    for (const c of open) c.close();
    await t.close();
  });

  const connect = async (token?: string) => {
    const c = await ModClient.connect(url, token ? { authorization: `Bearer ${token}` } : {});
    open.push(c);
    return c;
  };
  const closeAll = async () => {
    for (const c of open.splice(0)) {
      if (c.closed) continue;
      c.close();
      await c.waitClose();
    }
    // The server frees a session when its side of the socket closes, when ws also drops it from
    // the server's clients: poll for that (10 s deadline).
    const deadline = Date.now() + 10_000;
    while (t.app.websocketServer.clients.size > 0) {
      if (Date.now() > deadline) throw new Error(`${t.app.websocketServer.clients.size} sockets still open on the server`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('one account opens at most MOD_SESSIONS_PER_ACCOUNT sessions, by header or by auth message; others are unaffected', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await (await connect(tokenA)).next((m) => m.type === 'welcome')).data.authenticated, true);
    const fourth = await connect(tokenA);
    assert.deepEqual(await fourth.waitClose(), { code: 1013, reason: 'too many sessions for this account' });
    // The same account through a later auth message.
    const late = await connect();
    await late.next((m) => m.type === 'welcome');
    const refused = await late.request('auth', { token: tokenA });
    assert.equal(refused.code, 'too_many_sessions');
    assert.equal((await late.waitClose()).code, 1013);
    // Another account still gets in.
    const b = await connect(tokenB);
    assert.equal((await b.next((m) => m.type === 'welcome')).data.authenticated, true);
    await closeAll();
    // Closed sessions free their places.
    for (let i = 0; i < 3; i++) assert.equal((await (await connect(tokenA)).next((m) => m.type === 'welcome')).data.authenticated, true);
    await closeAll();
  });

  it('one address opens at most MOD_SESSIONS_PER_IP sessions', async () => {
    for (let i = 0; i < 6; i++) await (await connect()).next((m) => m.type === 'welcome');
    const seventh = await connect();
    assert.deepEqual(await seventh.waitClose(), { code: 1013, reason: 'too many sessions from this address' });
    await closeAll();
    await (await connect()).next((m) => m.type === 'welcome');
    await closeAll();
  });
});
