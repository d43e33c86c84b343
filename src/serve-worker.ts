/**
 * `skymarket serve` inside the worker thread that cli.ts starts with a bounded heap (see heap.ts):
 * the whole service runs here; the main thread only owns signals and the process's exit code.
 */
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { loadConfig, type ConfigOverrides } from './config.ts';
import { createLogger, prettyDestination } from './logger.ts';
import { startRuntime } from './runtime.ts';

export interface ServeWorkerData {
  overrides: ConfigOverrides;
  /** readable log lines (decided in the main thread, which knows whether stdout is a terminal) */
  pretty: boolean;
  /** colours in readable lines (stdout is a terminal) */
  colors: boolean;
}

/** Main thread → worker: shut down gracefully (a signal reached the process). */
export interface CloseMessage {
  type: 'close';
  signal: string | undefined;
}

const port = parentPort;
if (!port) throw new Error('serve-worker.ts runs as a worker thread (see cli.ts)');
const { overrides, pretty, colors } = workerData as ServeWorkerData;
const config = loadConfig(process.env, overrides);
// Straight to fd 1, as in the main thread: a worker's process.stdout is relayed through the main
// thread, and lines still in that relay are lost when the process exits.
const logger = createLogger(config.logLevel, pretty ? prettyDestination(1, colors) : pino.destination({ dest: 1, sync: true }));
const runtime = await startRuntime(config, { logger, ...(pretty ? { banner: (text: string) => writeSync(1, text) } : {}) });
let stopping = false;
/** Closes the service once (a signal, or a fatal error as close-with-grace does in the main thread) and ends the thread. */
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  // Stopping waits on unref'd timers (a poll's back-off): this keeps the thread alive meanwhile, as
  // the main thread's grace timer does when the service runs there; the grace period bounds it.
  setInterval(() => {}, 1000);
  setTimeout(() => process.exit(1), config.shutdownGraceSeconds * 1000);
  void runtime.close().then(
    () => process.exit(code),
    (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
}
port.on('message', (message: CloseMessage) => {
  if (message.type !== 'close') return;
  logger.info({ signal: message.signal }, 'shutting down gracefully');
  stop(0);
});
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err: unknown) => {
    logger.error({ err }, 'fatal error, shutting down');
    stop(1);
  });
}
