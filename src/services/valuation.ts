/**
 * What an exact item is worth (docs/valuation.md): both estimates, the value with its
 * confidence and the parts breakdown, for items sent as NBT and for listings. The market's
 * valuation view holds each tag's comparables (market/valuation.ts); part prices come from the
 * crafting view's bazaar books and lowest BINs behind the `PartPrices` interface, so a price map
 * (the networth file) can back it later. Built for the faces and for later consumers
 * (networth, the underpriced-listing feed): `valueItem`, `valueItems`, `valueListing`.
 */
import type { Clock } from '../clock.ts';
import { auctionFeeRate, type PriceSource } from '../domain/craft/prices.ts';
import { decodeNbtSlots, inflateItemBytes, ItemDecodeError, MAX_NBT_BYTES } from '../domain/nbt.ts';
import { estimateItem, type ItemValuation } from '../domain/valuation/estimate.ts';
import type { BaseVariant, PartPrice, PartPrices, PartsContext } from '../domain/valuation/parts.ts';
import { SubjectError, subjectOfDecoded, subjectOfJson } from '../domain/valuation/subject.ts';
import type { ItemKeys } from '../domain/valuation/comparables.ts';
import type { ItemTraits, ValuationSubject } from '../domain/valuation/traits.ts';
import type { Market } from '../market/index.ts';
import { VALUATION_WINDOW_MS, type TagMarketEntry } from '../market/valuation.ts';

/** Most items one request may value (an inventory's items count one by one). */
export const MAX_VALUE_ITEMS = 1_000;
/** Most NBT one request may inflate to, over all its items (gzip bombs stop here). */
export const MAX_VALUE_INFLATED_BYTES = 8 * 1024 * 1024;

/** A request's input that cannot be read: answered 400 with `slug`. */
export class ValuationInputError extends Error {
  constructor(
    readonly slug: 'bad_item' | 'too_many_items' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/** One valued item, as the service hands it to the faces. */
export interface ValuedItem {
  /** position among the request's items (inventory slots count one each) */
  index: number;
  /** false: the id is not an item skymarket knows; valued 0 */
  known: boolean;
  valuation: ItemValuation;
  /** sales of the tag in the last 24 hours (all variants) */
  volume24h: number;
  /** the comparables' window */
  windowMs: number;
}

/** A listing against its value. */
export interface ListingValue {
  uuid: string;
  /** the listing's price (starting bid, or its highest bid) for the whole stack */
  price: number;
  valued: ValuedItem;
  /** the stack's value */
  value: number | null;
  /** auction fee on reselling at the value (listing fee and tax) */
  feeRate: number;
  /** (price − value after fees) / value after fees: negative when the listing is below its value */
  vsValueAfterFees: number | null;
  /** value after fees − price */
  profitAfterFees: number | null;
}

/** A tag's inputs gathered once per call (`ValuationService.tagContext`). */
interface TagContext {
  entry: TagMarketEntry;
  now: number;
  volume24h: number;
  parts: PartsContext;
}

type ValuationMarketParts = Pick<Market, 'valuation' | 'craft' | 'activeAuctions' | 'catalog' | 'upgradeCosts'>;

export class ValuationService {
  constructor(
    private readonly market: ValuationMarketParts,
    private readonly clock: Clock,
  ) {}

  /** Values decoded subjects (null: an empty or unreadable slot, skipped). */
  async valueItems(subjects: ReadonlyArray<ValuationSubject | null>): Promise<ValuedItem[]> {
    const source = await this.priceSource();
    const tags = new Map<string, TagContext>();
    for (const s of subjects) if (s && !tags.has(s.tag)) tags.set(s.tag, this.tagContext(await this.market.valuation.forTag(s.tag), source));
    const out: ValuedItem[] = [];
    subjects.forEach((s, index) => {
      if (!s) return;
      out.push(this.valueWith(s, index, tags.get(s.tag)!, source));
    });
    return out;
  }

  async valueItem(subject: ValuationSubject, category?: string | null): Promise<ValuedItem> {
    const source = await this.priceSource();
    return this.valueWith(subject, 0, this.tagContext(await this.market.valuation.forTag(subject.tag, category), source), source, category);
  }

  /** An active listing against its value; undefined when no active listing has this uuid. */
  async valueListing(uuid: string): Promise<ListingValue | undefined> {
    return (await this.valueListings([uuid]))[0];
  }

  /**
   * Active listings against their values, in order (undefined: no active listing has that uuid),
   * the price source read once and each tag's comparables once: a generation's new listings.
   */
  async valueListings(uuids: readonly string[]): Promise<Array<ListingValue | undefined>> {
    await this.market.activeAuctions.ready();
    const source = await this.priceSource();
    const tags = new Map<string, TagContext>();
    const out: Array<ListingValue | undefined> = [];
    for (const uuid of uuids) {
      const l = this.market.activeAuctions.get(uuid);
      if (!l) {
        out.push(undefined);
        continue;
      }
      const key = `${l.tag}\u0000${l.category ?? ''}`;
      let tag = tags.get(key);
      if (!tag) {
        tag = this.tagContext(await this.market.valuation.forTag(l.tag, l.category), source);
        tags.set(key, tag);
      }
      // The listing's traits and keys as the valuation view holds them (once per listing object); never its own cheaper alternative.
      out.push(this.listingValue(uuid, l, this.valueWith(l, 0, tag, source, l.category, this.market.valuation.keysOfListing(l), uuid)));
    }
    return out;
  }

  private listingValue(uuid: string, l: { highestBid: number; startingBid: number; count: number }, valued: ValuedItem): ListingValue {
    const price = l.highestBid > 0 ? l.highestBid : l.startingBid;
    const perItem = valued.valuation.combined.value;
    const value = perItem === null ? null : perItem * l.count;
    const feeRate = value === null ? 0 : auctionFeeRate(value);
    const net = value === null ? null : value * (1 - feeRate);
    return {
      uuid,
      price,
      valued,
      value,
      feeRate,
      vsValueAfterFees: net === null || net <= 0 ? null : (price - net) / net,
      profitAfterFees: net === null ? null : net - price,
    };
  }

  /**
   * Items of a request: base64 gzip NBT strings (an auction's `item_bytes`, an inventory's `data`)
   * and NBT JSON objects, in order. Throws ValuationInputError for input that cannot be read;
   * an item whose id is unreadable becomes null (an empty slot).
   */
  readItems(inputs: readonly unknown[]): Array<ValuationSubject | null> {
    const out: Array<ValuationSubject | null> = [];
    let budget = MAX_VALUE_INFLATED_BYTES;
    for (const input of inputs) {
      if (typeof input === 'string') {
        let slots;
        try {
          // Each blob inflates within what is left of the request's budget.
          const raw = inflateItemBytes(input, Math.min(MAX_NBT_BYTES, budget));
          budget -= raw.length;
          slots = decodeNbtSlots(raw);
        } catch (err) {
          if (err instanceof ItemDecodeError) {
            if (err.reason === 'too_large') throw new ValuationInputError('too_large', `item ${out.length}: the NBT inflates past the request's budget of ${MAX_VALUE_INFLATED_BYTES} bytes`);
            if (err.reason === 'no_item') {
              out.push(null);
              continue;
            }
            throw new ValuationInputError('bad_item', `item ${out.length}: ${err.message}`);
          }
          throw err;
        }
        if (out.length + slots.length > MAX_VALUE_ITEMS) throw new ValuationInputError('too_many_items', `at most ${MAX_VALUE_ITEMS} items per request`);
        for (const d of slots) out.push(d === null ? null : subjectOfDecoded(d));
      } else {
        try {
          out.push(subjectOfJson(input));
        } catch (err) {
          if (err instanceof SubjectError) {
            if (err.reason === 'too_deep') throw new ValuationInputError('bad_item', `item ${out.length}: ${err.message}`);
            out.push(null);
            continue;
          }
          throw err;
        }
      }
      if (out.length > MAX_VALUE_ITEMS) throw new ValuationInputError('too_many_items', `at most ${MAX_VALUE_ITEMS} items per request`);
    }
    return out;
  }

  private async priceSource(): Promise<PriceSource> {
    return (await this.market.craft.current()).prices;
  }

  /**
   * What every item of a tag reads, gathered once per call (a request's items, a generation's
   * listings): the tag's market, its part prices (the clean base remembered per variant) and its
   * sales of the last 24 hours. Lives for one call: the price source and the market are read anew
   * by the next.
   */
  private tagContext(entry: TagMarketEntry, source: PriceSource): TagContext {
    const now = this.clock.now();
    let volume24h = 0;
    for (const sale of entry.sales) {
      if (sale.at < now - 86_400_000) break;
      if (sale.at < now) volume24h++;
    }
    return {
      entry,
      now,
      volume24h,
      parts: {
        prices: this.partPrices(source, entry),
        stars: this.market.upgradeCosts.stars,
        attributeShards: this.market.upgradeCosts.attributeShards,
        reforgeStones: this.market.upgradeCosts.parts.reforgeStones,
        gemstoneSlots: this.market.upgradeCosts.parts.gemstoneSlots,
      },
    };
  }

  private valueWith(s: ValuationSubject, index: number, tag: TagContext, source: PriceSource, category?: string | null, held?: { traits: ItemTraits; keys: ItemKeys }, self?: string): ValuedItem {
    const { entry, now } = tag;
    const valuation = estimateItem(s, entry, tag.parts, { now, windowMs: VALUATION_WINDOW_MS, ...(self !== undefined ? { self } : {}) }, category, held);
    const known = this.market.catalog.get(s.tag) !== undefined || entry.sales.length > 0 || entry.bins.length > 0 || source.bazaar(s.tag) !== undefined;
    if (!known) {
      valuation.combined = { value: 0, confidence: 0, method: 'none', comparablesWeight: 0, cappedAtBin: false };
      valuation.parts.value = 0;
    }
    return { index, known, valuation, volume24h: tag.volume24h, windowMs: VALUATION_WINDOW_MS };
  }

  /** Part prices over the bazaar books and lowest BINs, and the tag's clean base from its listings and sales (remembered per variant). */
  private partPrices(source: PriceSource, entry: TagMarketEntry): PartPrices {
    const binsOf = this.market.valuation.binsOf(entry.tag);
    const keysOf = (l: (typeof binsOf.listings)[number]) => this.market.valuation.keysOfListing(l);
    const bases = new Map<string, PartPrice | undefined>();
    const cleanBase = (variant: BaseVariant): PartPrice | undefined => {
      const clean = (t: ItemTraits) => isCleanFor(t, variant);
      // The cheapest clean listing of the variant; else the lower quartile of its clean sales.
      for (const l of binsOf.listings) if (clean(keysOf(l).traits)) return { coins: l.startingBid / l.count, source: 'lbin' };
      const prices: number[] = [];
      entry.saleTraits.forEach((t, i) => {
        if (clean(t)) prices.push(entry.sales[i]!.price);
      });
      if (prices.length > 0) {
        prices.sort((a, b) => a - b);
        return { coins: prices[Math.floor((prices.length - 1) / 4)]!, source: 'sales' };
      }
      const bazaar = partPrice(source, entry.tag);
      if (bazaar) return bazaar;
      // A pet of another level band, an item without a clean copy: the cheapest listing of the tag.
      const any = binsOf.listings[0];
      return any ? { coins: any.startingBid / any.count, source: 'lbin' } : undefined;
    };
    return {
      lookup(id: string): PartPrice | undefined {
        return partPrice(source, id);
      },
      base(tag: string, variant: BaseVariant): PartPrice | undefined {
        if (tag !== entry.tag) return partPrice(source, tag);
        // isCleanFor reads the tier only for a pet's variant.
        const key = variant.petBand === null ? '' : JSON.stringify([variant.petBand, variant.tier]);
        if (!bases.has(key)) bases.set(key, cleanBase(variant));
        return bases.get(key);
      },
    };
  }
}

/** An item in its base form for the variant: a pet of the rarity and level band without held item or skin; other items not recombobulated and without stars. */
function isCleanFor(t: ItemTraits, v: BaseVariant): boolean {
  if (v.petBand !== null) return t.pet !== null && t.pet.band === v.petBand && t.tier === v.tier && t.pet.heldItem === null && t.pet.skin === null;
  return !t.recombobulated && t.stars === 0 && t.masterStars === 0 && t.hotPotatoBooks === 0 && t.gems.length === 0;
}

/** What one unit of an item costs now: the bazaar's lowest sell offer (instant buy), else its cheapest BIN. */
function partPrice(source: PriceSource, id: string): PartPrice | undefined {
  const colon = id.indexOf(':');
  // Runes are asked as `RUNE_X:level`: their tag's cheapest BIN (levels are not told apart by the sample).
  const tag = colon > 0 && id.startsWith('RUNE_') ? id.slice(0, colon) : id;
  const q = source.bazaar(tag);
  if (q) {
    const offer = q.sellOffers[0]?.pricePerUnit ?? q.buyOrders[0]?.pricePerUnit;
    if (offer !== undefined && offer > 0) return { coins: offer, source: 'bazaar' };
  }
  const bins = source.lowestBins(tag);
  const cheapest = bins?.[0];
  if (cheapest && cheapest.unitPrice > 0) return { coins: cheapest.unitPrice, source: 'lbin' };
  return undefined;
}
