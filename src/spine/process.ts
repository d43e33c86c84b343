/**
 * The spine of one process, by configuration: without Redis, the store's in-process spine (one
 * process writes and reads, synchronously). With Redis, a process that may write (roles all and
 * ingest; it writes while it leads ingestion) relays every change of its store to the Redis stream,
 * and every process's views follow that stream, the writer's own included: a role-all standby
 * follows the leader like an API process does.
 */
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { MarketChangeBody } from '../domain/market-change.ts';
import type { ChangeSource } from './index.ts';
import { RedisSpine } from './redis.ts';

/** Changes the Redis stream keeps (`MAXLEN ~`): followers read within moments; one further behind resynchronises. */
export const SPINE_MAXLEN = 64;

export interface ProcessSpine {
  /** what this process's views follow */
  readonly source: ChangeSource;
  /** the Redis transport, when configured */
  readonly redis: RedisSpine | undefined;
  close(): Promise<void>;
}

export function processSpine(
  config: { redisUrl: string | undefined; redisPrefix: string },
  store: Store,
  logger: Logger,
  /** this process may write the store (roles all and ingest): it publishes its store's changes */
  writes: boolean,
): ProcessSpine {
  if (!config.redisUrl) return { source: store.changes, redis: undefined, close: async () => undefined };
  const redis = new RedisSpine({ url: config.redisUrl, prefix: config.redisPrefix, maxLen: SPINE_MAXLEN, logger: logger.child({ component: 'spine' }) });
  const stopRelay = writes
    ? store.changes.relay((event) => {
        if (event.type !== 'change') return;
        const { seq: _seq, ...body } = event.change;
        redis.publish(body as MarketChangeBody);
      })
    : undefined;
  return {
    source: redis,
    redis,
    async close() {
      stopRelay?.();
      await redis.close();
    },
  };
}
