import { pino, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { LogFormat, LogLevel } from './config.ts';

export type { Logger } from 'pino';

/**
 * Whether logs are written for people: LOG_FORMAT=pretty, or `auto` (the default) on a
 * terminal. Anything else (a pipe, a file, journald, a container's log driver) gets JSON lines.
 */
export function prettyLogs(format: LogFormat, stdoutIsTty: boolean | undefined): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty === true);
}

/**
 * Readable log lines for a terminal (pino-pretty, in-process and synchronous): local time,
 * level, `[component]` and the message on one line, the record's other fields after it; the
 * start-up config record's long `config` object is left out (it is in the JSON logs).
 */
export function prettyDestination(fd = 1, colorize = true): pino.DestinationStream {
  return pinoPretty({
    destination: fd,
    sync: true,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,service,component,config',
    messageFormat: '{if component}[{component}] {end}{msg}',
  });
}

/** Structured JSON logs (or pretty ones on a given destination); secrets in headers and query strings are never written. */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'skymarket' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.identitytoken',
          'req.headers.googletoken',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          'headers.authorization',
          'token',
          'apiKey',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({
          method: req.method,
          // Query strings may carry apiKey/key/token: log the path only.
          url: req.url.split('?')[0],
          id: req.id,
        }),
      },
    },
    destination,
  );
}

/**
 * Fastify `childLoggerFactory`: the per-request logger (bound to the request id) is built on
 * its first use. Request logging is off unless debugging, so most requests never log, and
 * building a pino child (serialising its bindings) for each of them was measurable.
 */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (parent, bindings, options) =>
  // The app's logger is always a pino Logger (buildApp's loggerInstance).
  new LazyChildLogger(parent as Logger, bindings, options as pino.ChildLoggerOptions) as unknown as FastifyBaseLogger;

class LazyChildLogger {
  #real: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindingsOf: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}

  private get real(): Logger {
    return (this.#real ??= this.parent.child(this.bindingsOf, this.options));
  }

  /** Whether the child would write at `level`, without building it. */
  private enabled(level: pino.Level): boolean {
    const own = this.options.level;
    if (own === undefined) return this.parent.isLevelEnabled(level);
    return (this.parent.levels.values[level] ?? 0) >= (this.parent.levels.values[own] ?? 0);
  }

  get level(): string {
    return this.#real?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.real.isLevelEnabled(level);
  }

  bindings(): pino.Bindings {
    return this.real.bindings();
  }

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.real.child(bindings, options);
  }

  fatal(...args: Parameters<pino.LogFn>): void {
    if (this.#real !== undefined || this.enabled('fatal')) this.real.fatal(...args);
  }

  error(...args: Parameters<pino.LogFn>): void {
    if (this.#real !== undefined || this.enabled('error')) this.real.error(...args);
  }

  warn(...args: Parameters<pino.LogFn>): void {
    if (this.#real !== undefined || this.enabled('warn')) this.real.warn(...args);
  }

  info(...args: Parameters<pino.LogFn>): void {
    if (this.#real !== undefined || this.enabled('info')) this.real.info(...args);
  }

  debug(...args: Parameters<pino.LogFn>): void {
    if (this.#real !== undefined || this.enabled('debug')) this.real.debug(...args);
  }

  trace(...args: Parameters<pino.LogFn>): void {
    if (this.#real !== undefined || this.enabled('trace')) this.real.trace(...args);
  }

  silent(...args: Parameters<pino.LogFn>): void {
    this.real.silent(...args);
  }
}
