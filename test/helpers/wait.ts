/** Polling with a deadline: how tests wait, never a fixed sleep. */

export interface WaitOptions {
  timeoutMs: number;
  /** between probes (default 20 ms) */
  intervalMs?: number;
  /** more to say when the deadline passes (the logs of the processes waited on, say) */
  detail?: () => string;
}

/** Polls `probe` until it gives a value other than undefined, and returns it; throws naming `what` at the deadline. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const detail = options.detail?.();
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}${detail ? `\n${detail}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 20));
  }
}

/** Polls a condition (synchronous or not) until it holds; throws naming `what` at the deadline. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string, intervalMs = 20): Promise<void> {
  await waitFor(what, async () => ((await predicate()) ? true : undefined), { timeoutMs, intervalMs });
}
