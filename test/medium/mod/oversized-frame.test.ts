/**
 * An oversized mod frame (issue 45 item 8): the client gets 1009, and the log says it was the
 * client's fault, as a warning without a stack trace or a path into node_modules.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { LIMITS } from '../../../src/mod/messages.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { ModClient } from './helpers.ts';

describe('oversized mod frame', () => {
  let t: TestApp;
  let url: string;
  const lines: Array<Record<string, unknown>> = [];
  before(async () => {
    const logDestination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    t = await createTestApp({ env: { LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, logDestination });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address.replace('http', 'ws')}/modsocket`;
  });
  after(() => t.close());

  it('a 2 MB frame: 1009 for the client, one warning without a stack for the log', async () => {
    const client = await ModClient.connect(url);
    client.ws.send('x'.repeat(2 * 1024 * 1024));
    assert.equal((await client.waitClose()).code, 1009);
    const deadline = Date.now() + 5000;
    const mentions = () => lines.filter((l) => JSON.stringify(l).includes('Max payload'));
    while (mentions().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(mentions().length, 1, JSON.stringify(lines));
    const [line] = mentions();
    assert.equal(line!.level, 40, 'warn');
    assert.doesNotMatch(JSON.stringify(line), /node_modules|\bat \w|stack/);
    assert.equal(lines.filter((l) => Number(l.level) >= 50).length, 0, 'no error-level line');
    assert.ok(LIMITS.frameBytes < 2 * 1024 * 1024);
  });
});
