/**
 * A lane of bounded concurrency for expensive request work (the upload scan, issue 45 item 1):
 * at most `slots` pieces of work run at once, at most `queue` more wait their turn in order, and
 * beyond that the request is refused at once. So whatever clients send, the work in flight (and
 * the memory it holds) is bounded, and the event loop never runs more than `slots` of it per turn.
 */
export class WorkLane {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly slots: number,
    readonly queue: number,
  ) {}

  /** Work running or waiting now. */
  get load(): number {
    return this.running + this.waiting.length;
  }

  /** Runs `work` in a free slot (after the work queued before it); `undefined` without running it when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (this.running >= this.slots) {
      if (this.waiting.length >= this.queue) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return { value: await work() };
    } finally {
      // The slot passes straight to the next in line, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
