/**
 * When the app cuts a client that trickles its request (issue 21 item 3), against the timeouts it
 * is configured with: a body dripped 4 bytes every 100 ms (REQUEST_TIMEOUT_MS 1,500) and headers
 * dripped a line every 100 ms (HEADERS_TIMEOUT_MS 1,000). The ratio is the cut's time over the
 * configured timeout: at least 1 (not cut early), and close to it (Node checks the timeouts every
 * `connectionsCheckingInterval`). test/medium/http/hostile.test.ts checks the answers (408
 * problems); the times are measured here, not asserted on a shared machine.
 */
import { connect } from 'node:net';
import { startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

const REQUEST_TIMEOUT_MS = 1500;
const HEADERS_TIMEOUT_MS = 1000;

/** Sends `head`, then `drip` every 100 ms until the server answers or closes: the status line and when it came. */
function trickle(port: number, head: string, drip: string): Promise<{ status: string; afterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => socket.writable && socket.write(drip), 100);
    });
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ status: answer.split('\r\n')[0] ?? '', afterMs: performance.now() - started });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error('still connected after 10 s'));
    }, 10_000).unref();
  });
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const rounds = options.quick ? 1 : 3;
  const app = await startServer('app', [], { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) });
  try {
    const port = Number(new URL(app.url).port);
    const cases = [
      { what: 'a trickled body', timeout: REQUEST_TIMEOUT_MS, setting: 'REQUEST_TIMEOUT_MS', head: 'POST /api/data/playerNames HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[', drip: '"a",' },
      { what: 'trickled headers', timeout: HEADERS_TIMEOUT_MS, setting: 'HEADERS_TIMEOUT_MS', head: 'GET /api/version HTTP/1.1\r\nHost: x\r\n', drip: 'X-Slow: y\r\n' },
    ];
    const rows: BenchRow[] = [];
    for (const c of cases) {
      const cuts: Array<{ status: string; afterMs: number }> = [];
      // One at a time: each is a connection of its own, cut on its own clock.
      for (let i = 0; i < rounds; i++) cuts.push(await trickle(port, c.head, c.drip));
      const times = cuts.map((x) => x.afterMs);
      const earliest = Math.min(...times);
      rows.push({
        name: `cut of ${c.what} (${c.setting} ${c.timeout} ms), earliest of ${rounds}`,
        figure: Math.round(earliest),
        unit: 'ms',
        ratio: earliest / c.timeout,
        baseline: c.setting,
        notes: `all: ${times.map((t) => Math.round(t)).join(', ')} ms; answers: ${[...new Set(cuts.map((x) => x.status))].join(' / ')}`,
      });
    }
    return rows;
  } finally {
    await app.stop();
  }
}
