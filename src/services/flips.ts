/**
 * What the flip feeds ask of the flip engine (market/flips.ts, recomputed off the request path
 * when inputs change): the latest results of one model and when they were computed. Before the
 * first computation a feed is empty and has no time.
 */
import { sortAttributeFlips, type AttributeFlip, type AttributeSort } from '../domain/flips/attribute.ts';
import { forgeableAt, type ForgeFlip } from '../domain/flips/forge.ts';
import { katUpgradeCost, type KatFlip, type KatUpgradeCost } from '../domain/flips/kat.ts';
import type { MayorDiffFlip } from '../domain/flips/mayor.ts';
import type { GameData } from '../gamedata/types.ts';
import { attributePrices } from '../domain/attribute-prices.ts';
import type { BazaarFlipResults, FlipEngine } from '../market/flips.ts';

/** One feed's flips and the time they were computed (null before the first computation). */
export interface FlipFeed<T> {
  computedAt: number | null;
  flips: T[];
}

/** The bazaar-driven feeds, by name. */
export type BazaarFeed = Exclude<keyof BazaarFlipResults, 'computedAt' | 'snapshotAt'>;

/** What the feeds read of the flip engine (market/flips.ts): its latest results, and a refresh. */
export type FlipResults = Pick<FlipEngine, 'lastUpdate' | 'bazaar' | 'residual' | 'attributeVariants' | 'auctions' | 'crafted' | 'refresh'>;

export class FlipsService {
  /** Kat's upgrade table in the established shape, built once from the game data */
  private readonly katTable: KatUpgradeCost[];

  constructor(
    private readonly engine: FlipResults,
    game: Pick<GameData, 'katUpgrades'>,
  ) {
    this.katTable = game.katUpgrades.map(katUpgradeCost);
  }

  /** Upstream time of the newest data any flip was computed from. */
  lastUpdate(): number | null {
    return this.engine.lastUpdate;
  }

  bazaar<K extends BazaarFeed>(feed: K): FlipFeed<BazaarFlipResults[K][number]> {
    const results = this.engine.bazaar;
    return { computedAt: results?.computedAt ?? null, flips: results ? (results[feed] as Array<BazaarFlipResults[K][number]>) : [] };
  }

  /** Residual flips for a hold time (the default hour is precomputed; others are derived from the held market). */
  residual(targetHoldTimeHours: number): FlipFeed<BazaarFlipResults['residual'][number]> {
    return { computedAt: this.engine.bazaar?.computedAt ?? null, flips: this.engine.residual(targetHoldTimeHours) };
  }

  /** `{attribute: {level: price}}` from the attribute variants the auction flips last rolled up (empty before). */
  attributePrices(): Record<string, Record<string, number>> {
    return attributePrices(this.engine.attributeVariants);
  }

  mayor(): FlipFeed<MayorDiffFlip> {
    const results = this.engine.auctions;
    return { computedAt: results?.computedAt ?? null, flips: results?.mayor ?? [] };
  }

  attribute(sort: AttributeSort): FlipFeed<AttributeFlip> {
    const results = this.engine.auctions;
    return { computedAt: results?.computedAt ?? null, flips: sortAttributeFlips(results?.attribute ?? [], sort) };
  }

  /** Forge flips; with a Heart of the Mountain tier, only those it can forge. */
  forge(hotm?: number): FlipFeed<ForgeFlip> {
    const results = this.engine.crafted;
    const flips = results?.forge ?? [];
    return { computedAt: results?.computedAt ?? null, flips: hotm === undefined ? flips : forgeableAt(flips, hotm) };
  }

  kat(): FlipFeed<KatFlip> {
    const results = this.engine.crafted;
    return { computedAt: results?.computedAt ?? null, flips: results?.kat ?? [] };
  }

  /** Kat's pet rarity upgrades (coins, time, materials), from the game data. */
  katUpgrades(): KatUpgradeCost[] {
    return this.katTable;
  }

  /** Recomputes every model now from the inputs held; resolves with the failure, if any, instead of throwing. */
  async refreshNow(): Promise<{ ok: true } | { ok: false; error: unknown }> {
    try {
      await this.engine.refresh(true);
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    }
  }
}
