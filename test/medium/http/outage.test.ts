/**
 * A PostgreSQL outage (issue 21 item 9): the database goes away behind a TCP proxy while the app
 * runs; requests that need it get 503 with Retry-After (not 500 with a stack logged per request),
 * the outage is logged once, and its end once, when the database answers again.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { Store } from '../../../src/store/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { dropSchema, IN_CI, POSTGRES_TEST_URL, postgresUnavailable, uniqueSchema } from '../../helpers/databases.ts';

/** A TCP proxy to PostgreSQL that can be cut (connections dropped, nothing listening) and restored on the same port. */
class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async start(): Promise<void> {
    const target = new URL(POSTGRES_TEST_URL);
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}

const title = 'database outage [postgres]';
if (postgresUnavailable && !IN_CI) {
  console.log(`# SKIP ${title}: ${postgresUnavailable}`);
} else {
  describe(title, () => {
    const proxy = new CuttableProxy();
    const schema = uniqueSchema('outage');
    const lines: Array<{ level: number; msg: string }> = [];
    let store: Store;
    let t: TestApp;
    before(async () => {
      await proxy.start();
      const url = new URL(POSTGRES_TEST_URL);
      url.port = String(proxy.port);
      store = await Store.open({ databaseUrl: url.toString(), dataDir: tmpdir(), schema });
      const logDestination = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      });
      t = await createTestApp({ store, env: { LOG_LEVEL: 'warn', LOG_FORMAT: 'json' }, logDestination });
    });
    after(async () => {
      await t.close();
      await store.close();
      await proxy.cut();
      await dropSchema(schema);
    });

    const ask = () => t.app.inject({ method: 'POST', url: '/api/data/playerName?name=Someone' });

    it('answers 503 with Retry-After while the database is gone, logs it once, and recovers', async () => {
      assert.equal((await ask()).statusCode, 200);
      await proxy.cut();
      for (let i = 0; i < 5; i++) {
        const res = await ask();
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.headers['retry-after'], '5');
        assert.equal(res.headers['content-type'], 'application/problem+json');
        assert.equal(res.json().slug, 'database_unavailable');
        assert.doesNotMatch(res.body, /at .*\.(ts|js):\d+/);
      }
      const outageLines = lines.filter((l) => /database unavailable/.test(l.msg));
      assert.equal(outageLines.length, 1, JSON.stringify(lines));
      assert.equal(lines.filter((l) => l.msg === 'request failed').length, 0, 'no per-request error with a stack');
      await proxy.start();
      const deadline = Date.now() + 15_000;
      while (!lines.some((l) => /available again/.test(l.msg)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(lines.some((l) => /available again/.test(l.msg)), JSON.stringify(lines));
      assert.equal((await ask()).statusCode, 200);
    });
  });
}
