/**
 * Decoded `nbtData` of the auctions the market shows. The in-memory view keeps no item bytes;
 * an auction's item never changes, so its decoded NBT is read and decoded once and kept per
 * auction uuid (bounded), and repeated pages cost neither the bytes query nor the decoding.
 */
import { nbtDataOf, type NbtDataWire } from '../domain/auction-wire.ts';
import type { Store } from '../store/index.ts';

/** Auctions whose nbtData is kept; past it the memory starts over. */
const MAX_KEPT = 20_000;

export class AuctionNbt {
  private readonly kept = new Map<string, NbtDataWire>();

  constructor(private readonly store: Store) {}

  /** nbtData per auction uuid, for every uuid given (`{}` when the item is unknown or undecodable). */
  async of(uuids: readonly string[]): Promise<Map<string, NbtDataWire>> {
    const out = new Map<string, NbtDataWire>();
    const missing: string[] = [];
    for (const uuid of uuids) {
      const known = this.kept.get(uuid);
      if (known === undefined) missing.push(uuid);
      else out.set(uuid, known);
    }
    if (missing.length === 0) return out;
    const nbt = await this.store.auctionQueries.itemNbtOf(missing);
    if (this.kept.size + missing.length > MAX_KEPT) this.kept.clear();
    for (const uuid of missing) {
      const data = nbtDataOf(nbt.get(uuid));
      this.kept.set(uuid, data);
      out.set(uuid, data);
    }
    return out;
  }
}
