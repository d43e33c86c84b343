/**
 * Auctions as the services and faces see them once read from the store. The store's repositories
 * produce these (store/repositories/auction-queries.ts); they live here so a face or a service
 * spec can name them without importing store/.
 */
import type { AuctionFacts } from './auction-wire.ts';

/** Where an auction is in its life. */
export type AuctionState = 'active' | 'sold' | 'expired';

/**
 * An auction row with its JSON columns parsed and booleans normalized; item bytes left out. The
 * facts an auction's wire shapes are built from (domain/auction-wire.ts), plus its storage state.
 */
export interface AuctionRecord extends AuctionFacts {
  uuid: string;
  seller: string;
  coop: string[];
  enchantments: Record<string, number>;
  flatNbt: Record<string, string>;
  state: AuctionState;
  lastUpdated: number;
  buyer: string | null;
}

/** One sale of a physical item (duplicate detection). */
export interface ItemSaleRow {
  uuid: string;
  tag: string;
  itemUid: string | null;
  seller: string;
  buyer: string | null;
  price: number;
  at: number;
}
