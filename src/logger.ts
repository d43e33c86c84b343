import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

export type { Logger } from 'pino';

/** Structured JSON logs; secrets in headers and query strings are never written. */
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
