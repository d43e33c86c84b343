/** Rendered pages kept briefly per URL and data generation, bounded in entries (oldest evicted). */
export class PageCache {
  private readonly entries = new Map<string, { generation: string; at: number; html: string }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, generation: string, now: number): string | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.generation !== generation || now - e.at >= this.ttlMs || now < e.at) {
      this.entries.delete(key);
      return undefined;
    }
    return e.html;
  }

  set(key: string, generation: string, now: number, html: string): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { generation, at: now, html });
  }

  get size(): number {
    return this.entries.size;
  }
}
