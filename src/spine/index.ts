/**
 * The spine (docs/architecture.md): one ordered stream of committed market changes
 * (domain/market-change.ts). The one writer publishes each change after its commit; every view
 * follows it from the sequence number it last applied (spine/follower.ts). Two transports behind
 * one interface: in process (spine/in-process.ts, one process) and Redis Streams (spine/redis.ts,
 * several processes sharing a store).
 */
import type { MarketChange, MarketChangeBody, HoleReason } from '../domain/market-change.ts';

/** What a subscriber is told: a change, or that the transport lost or regained its connection. */
export type SpineEvent =
  | { type: 'change'; change: MarketChange }
  /** changes cannot be received now (the transport will say `restored` when they can again) */
  | { type: 'unavailable'; error: string }
  /** receiving again after an outage: changes may have been missed, resynchronise */
  | { type: 'restored'; reason: HoleReason };

export interface ChangeSource {
  /** The sequence number of the newest change published (0: none yet). */
  head(): Promise<number>;
  /**
   * Delivers, in order, the changes after `fromSeq` the transport still holds, then every new one.
   * Changes it no longer holds are skipped: the subscriber sees a jump in the sequence (a hole).
   * Returns the unsubscribe function.
   */
  subscribe(fromSeq: number, handler: (event: SpineEvent) => void): () => void;
}

export interface ChangeSink {
  /** Publishes one committed change (never throws: a change it cannot publish is told to followers as `lost`). */
  publish(body: MarketChangeBody): void;
}

export type { MarketChange, MarketChangeBody };
