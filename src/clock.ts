/**
 * Every clock read in skymarket goes through a Clock so tests, benchmarks and the
 * simulator can move time deterministically. Times are UTC epoch milliseconds.
 */
export interface Clock {
  now(): number;
  /** waits `ms` of this clock's time (a ManualClock just moves forward); default: a real timer */
  sleep?(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Waits `ms` on `clock`: its own sleep when it has one, else a real timer. */
export function sleepOn(clock: Clock, ms: number): Promise<void> {
  if (clock.sleep) return clock.sleep(ms);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A clock that only moves when told to: for tests and backfills. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  set(ms: number): void {
    this.current = ms;
  }

  advance(ms: number): number {
    this.current += ms;
    return this.current;
  }

  /** Time passes at once: the clock moves forward by `ms` and the promise resolves. */
  sleep(ms: number): Promise<void> {
    this.current += ms;
    return Promise.resolve();
  }
}
