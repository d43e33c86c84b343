/**
 * The compact bazaar layout's two lookups (migration 010): product numbers (text product id ↔
 * integer in `bazaar_products`) and order-book resolution (a stored delta + its keyframe → the
 * full book). Shared by every repository that reads snapshot rows; both caches only grow with
 * the product count (numbers never change, keyframes are immutable).
 */
import { sql, type Kysely } from 'kysely';
import { decodeBook, encodeBook, isFullBook, type OrderBook } from '../../domain/bazaar-book.ts';
import { applyBookDelta, deltaAge } from '../../domain/bazaar-book-delta.ts';
import type { Database } from '../schema.ts';

/** Decoded keyframes kept in memory: a couple per product. */
const KEYFRAME_CACHE = 8192;

export interface KeyframeRow {
  product_id: string;
  ts: number;
  book: Uint8Array;
  /** the decoded book, when the writer has it (saves decoding it again) */
  decoded?: OrderBook;
}

export class BazaarBooks {
  private readonly numbers = new Map<string, number>();
  private readonly keyframes = new Map<string, OrderBook>();

  constructor(private readonly db: Kysely<Database>) {}

  /** Numbers of `productIds`, numbering new products (safe against a concurrent writer). */
  async numbersFor(productIds: Iterable<string>, db: Kysely<Database> = this.db): Promise<Map<string, number>> {
    const missing = new Set<string>();
    for (const id of productIds) if (!this.numbers.has(id)) missing.add(id);
    if (missing.size > 0) {
      const ids = [...missing];
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        await db.insertInto('bazaar_products').values(chunk.map((product_id) => ({ product_id }))).onConflict((oc) => oc.column('product_id').doNothing()).execute();
      }
      await this.loadNumbers(db);
    }
    return this.numbers;
  }

  /** The number of a known product, or undefined (never numbers a new one). */
  async numberOf(productId: string): Promise<number | undefined> {
    if (!this.numbers.has(productId)) await this.loadNumbers();
    return this.numbers.get(productId);
  }

  private async loadNumbers(db: Kysely<Database> = this.db): Promise<void> {
    for (const r of await db.selectFrom('bazaar_products').select(['id', 'product_id']).execute()) this.numbers.set(r.product_id, Number(r.id));
  }

  /** Keyframes just written (their decoded books go straight into the cache). */
  remember(product: number, ts: number, book: OrderBook): void {
    this.cache(`${product}:${ts}`, book);
  }

  private cache(key: string, book: OrderBook): void {
    if (this.keyframes.size >= KEYFRAME_CACHE) this.keyframes.delete(this.keyframes.keys().next().value!);
    this.keyframes.set(key, book);
  }

  /**
   * Resolves stored books to full ones in place: every delta becomes the full encoding of the
   * book it describes (one batched keyframe read for whatever is not cached). A delta whose
   * keyframe is missing or corrupt becomes null (no book), never an exception.
   */
  async resolve<R extends { product_id: string; ts: number; book: Uint8Array | null }>(rows: R[]): Promise<R[]> {
    const wanted = new Map<string, { product: number; ts: number }>();
    const pending: Array<[R, string]> = [];
    for (const r of rows) {
      if (!r.book || isFullBook(r.book)) continue;
      const product = this.numbers.get(r.product_id) ?? (await this.numberOf(r.product_id));
      let age: number;
      try {
        age = deltaAge(r.book);
      } catch {
        r.book = null;
        continue;
      }
      if (product === undefined) {
        r.book = null;
        continue;
      }
      const ts = Number(r.ts) - age;
      const key = `${product}:${ts}`;
      if (!this.keyframes.has(key)) wanted.set(key, { product, ts });
      pending.push([r, key]);
    }
    if (wanted.size > 0) await this.load([...wanted.values()]);
    for (const [r, key] of pending) {
      const keyframe = this.keyframes.get(key);
      try {
        r.book = keyframe ? encodeBook(applyBookDelta(keyframe, r.book!)) : null;
      } catch {
        r.book = null;
      }
    }
    return rows;
  }

  private async load(keys: Array<{ product: number; ts: number }>): Promise<void> {
    for (let i = 0; i < keys.length; i += 200) {
      const chunk = keys.slice(i, i + 200);
      const match = sql.join(chunk.map((k) => sql`(product = ${k.product} and ts = ${k.ts})`), sql` or `);
      const rows = await sql<{ product: number; ts: number; book: Uint8Array }>`select product, ts, book from bazaar_book_keyframes where ${match}`.execute(this.db);
      for (const r of rows.rows) {
        try {
          this.cache(`${Number(r.product)}:${Number(r.ts)}`, decodeBook(r.book));
        } catch {
          // corrupt keyframe: its deltas resolve to no book
        }
      }
    }
  }
}
