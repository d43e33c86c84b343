/**
 * Benchmark target for bench/stream.ts: the real app (SQLite, in-memory hub, no connection
 * limit), driven over IPC: `publish` puts one generation's worth of events into the hub (the
 * batch the market derives from a 60,000-auction generation: 2,000 new, 2,000 sold, 1,000 lowest-BIN
 * changes and the generation event, with simulator-like items), `stats` answers RSS and connections.
 */
import { serveBenchApp, THROUGHPUT_ENV } from './serve-app.ts';
import { generation } from './stream-generation.ts';

const app = await serveBenchApp({ env: { ...THROUGHPUT_ENV, STREAM_CONNECTIONS_PER_IP: '1000000', STREAM_QUEUE_BYTES: String(4 * 1024 * 1024) } });
const hub = app.services.stream.hub;

process.on('message', (message: { cmd: string }) => {
  void (async () => {
    if (message.cmd === 'publish') {
      const events = generation();
      const bytes = events.reduce((n, e) => n + JSON.stringify(e).length, 0);
      const at = Date.now();
      // The generation's `time` is when it is handed to the hub: the clients measure from it.
      (events[events.length - 1] as { time: number }).time = at;
      await hub.publish(events);
      process.send!({ published: at, events: events.length, bytes, publishMs: Date.now() - at });
    } else if (message.cmd === 'stats') {
      if (global.gc) global.gc();
      process.send!({ rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed });
    }
  })();
});
