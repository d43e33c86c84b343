/**
 * The spine in one process: a change is numbered and handed to every subscriber synchronously
 * when the writer publishes it (right after its commit), so a view reflects a write as soon as
 * the write returns. Nothing is kept: a subscriber that starts behind the head sees a hole.
 */
import type { MarketChangeBody } from '../domain/market-change.ts';
import type { ChangeSink, ChangeSource, SpineEvent } from './index.ts';

export class InProcessSpine implements ChangeSource, ChangeSink {
  private seq = 0;
  private readonly handlers = new Set<(event: SpineEvent) => void>();
  /** subscribers after the first publish of each change (a relay to Redis listens here too) */
  private readonly relays = new Set<(event: SpineEvent) => void>();

  head(): Promise<number> {
    return Promise.resolve(this.seq);
  }

  /** The head without waiting (this transport knows it). */
  get last(): number {
    return this.seq;
  }

  subscribe(_fromSeq: number, handler: (event: SpineEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Like subscribe, but called after every subscriber (a relay of the changes elsewhere). */
  relay(handler: (event: SpineEvent) => void): () => void {
    this.relays.add(handler);
    return () => this.relays.delete(handler);
  }

  get subscribers(): number {
    return this.handlers.size + this.relays.size;
  }

  publish(body: MarketChangeBody): void {
    const event: SpineEvent = { type: 'change', change: { ...body, seq: ++this.seq } };
    for (const handler of [...this.handlers, ...this.relays]) handler(event);
  }
}
