/**
 * The market's event batches (market/events.ts) taken one at a time, in the order they come: the alert
 * evaluator and the underpriced list each follow the emitter through one. A failed task does not stop
 * the tasks queued after it.
 */
import type { EventEmitter } from 'node:events';
import type { DraftEvent } from '../domain/stream-events.ts';

export type BatchEmitter = EventEmitter<{ batch: [DraftEvent[]] }>;

export class BatchQueue {
  private tail: Promise<void> = Promise.resolve();
  private detach: (() => void) | undefined;

  /** Calls `onBatch` for each batch the emitter tells, until stop(). */
  attach(emitter: BatchEmitter, onBatch: (batch: DraftEvent[]) => void): void {
    emitter.on('batch', onBatch);
    this.detach = () => emitter.off('batch', onBatch);
  }

  /** Runs `task` once every task queued before it has settled; answers the task's own promise. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const done = this.tail.then(task);
    this.tail = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** Stops following the emitter; resolves once the tasks queued so far have settled. */
  stop(): Promise<void> {
    this.detach?.();
    this.detach = undefined;
    return this.tail;
  }

  /** Resolves once every task queued so far has settled. */
  idle(): Promise<void> {
    return this.tail;
  }
}
