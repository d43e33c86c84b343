/**
 * A token bucket: `burst` messages at once, `perSecond` sustained (the mod channel's and the live
 * feed's per-connection message limits). Times are the caller's monotonic milliseconds.
 */
export class Bucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  /** 0 when a message may pass (and takes its token), else ms until one is available. */
  take(now: number): number {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }
}
