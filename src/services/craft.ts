/**
 * What the crafting routes ask: an item's recipe, craft instructions over the whole craft tree,
 * the profit list (filtered by the player's unlocked requirements when they are known) and live
 * acquisition plans. Recipes come from the game data, prices from the crafting view
 * (market/craft.ts, rebuilt per snapshot); players' progress from their mod's uploads and from
 * their profiles as ingestion fetched them (services/player-progress.ts).
 */
import type { Clock } from '../clock.ts';
import { CraftEngine, type AcquisitionPlan } from '../domain/craft/engine.ts';
import { craftInstruction, flatRecipe, primaryRecipe, type CraftInstructionAnswer } from '../domain/craft/instructions.ts';
import type { PriceSource } from '../domain/craft/prices.ts';
import { filterByProgress, type PlayerProgress, type ProfitableCraft } from '../domain/craft/profit.ts';
import type { GameData } from '../gamedata/types.ts';
import type { CraftMarket } from '../market/craft.ts';
import { FetchedProfileProgress, UploadedProgress, type ProfileRequests, type UploadedStates } from './player-progress.ts';

/** Why an item has no answer: never seen, or seen but without a crafting, forge or shop recipe. */
export type CraftMiss = { miss: 'unknown_item' } | { miss: 'no_recipe' };

export interface RecipeAnswer {
  /** grid slots A1..C3 ("TAG:amount" or "") */
  slots: Record<string, string>;
  count: number;
  type: string;
  durationSeconds: number | null;
}

/**
 * The profit list for a request: filtered by the player's progress (`crafts`), or the list for
 * everyone (`unfiltered`: the craft view's state, which the route serialises once: http/prepared-answers.ts). `filter` says which and why.
 */
export type ProfitAnswer = { filter: string; crafts: ProfitableCraft[] } | { filter: string; unfiltered: { readonly profits: readonly ProfitableCraft[] } };

export interface CraftServiceOptions {
  /** what the players' progress is read from: mod uploads and fetched profiles */
  store: UploadedStates & ProfileRequests;
  clock: Clock;
  game: GameData;
  craft: CraftMarket;
  /** whether ingestion fetches players' profiles (it needs UPSTREAM_API_KEY); without, the list is filtered by mod uploads only */
  fetchProfiles: boolean;
}

export class CraftService {
  private readonly game: GameData;
  private readonly craft: CraftMarket;
  private readonly uploaded: UploadedProgress;
  private readonly fetched: FetchedProfileProgress | undefined;

  constructor(options: CraftServiceOptions) {
    this.game = options.game;
    this.craft = options.craft;
    this.uploaded = new UploadedProgress(options.store, options.game);
    this.fetched = options.fetchProfiles ? new FetchedProfileProgress(options.store, options.game, options.clock) : undefined;
  }

  recipe(tag: string): RecipeAnswer | CraftMiss {
    if (!this.known(tag)) return { miss: 'unknown_item' };
    const recipe = primaryRecipe(this.game, tag);
    if (!recipe) return { miss: 'no_recipe' };
    return { slots: flatRecipe(recipe), count: recipe.count, type: recipe.type, durationSeconds: recipe.durationSeconds ?? null };
  }

  async instructions(tag: string): Promise<CraftInstructionAnswer | CraftMiss> {
    const state = await this.craft.current();
    if (!this.known(tag, state.prices)) return { miss: 'unknown_item' };
    if (!primaryRecipe(this.game, tag)) return { miss: 'no_recipe' };
    return craftInstruction(this.game, state.prices, tag);
  }

  async acquisition(tag: string, quantity: number, forceCraft: boolean): Promise<AcquisitionPlan | CraftMiss> {
    const state = await this.craft.current();
    if (!this.known(tag, state.prices)) return { miss: 'unknown_item' };
    return new CraftEngine(this.game, state.prices).plan(tag, quantity, forceCraft);
  }

  /** The player's own mod upload first (exact and local), then the profiles ingestion fetched (queued here when missing). */
  /** `client`: who asks (`account:…` or `ip:…`): a client may queue only its share of profile fetches. */
  async profit(player: string | undefined, profile: string | undefined, client?: string): Promise<ProfitAnswer> {
    const state = await this.craft.current();
    const fromMod = player ? await this.uploaded.lookup(player, profile) : undefined;
    if (fromMod?.status === 'known') {
      return { filter: 'filtered; by the collections, slayers and skills the player\'s mod uploaded', crafts: filterByProgress(state.profits, fromMod.progress) };
    }
    let filter: string;
    if (player && this.fetched) {
      const found = await this.fetched.lookup(player, profile, client);
      if (found.status === 'known') return { filter: 'filtered; by the player\'s unlocked collections, slayers and skills', crafts: filterByProgress(state.profits, found.progress) };
      filter = `unfiltered; ${found.reason}`;
    } else {
      filter = player ? `unfiltered; ${fromMod?.status === 'unavailable' ? fromMod.reason : 'no mod upload'}, and no UPSTREAM_API_KEY for the profile endpoint` : 'unfiltered; no player given';
    }
    return { filter, unfiltered: state };
  }

  /** The craft view's newest state (compared by identity): the generation the unfiltered profit list is prepared at. */
  profitsGeneration(): unknown {
    return this.craft.latest();
  }

  /**
   * The player's Heart of the Mountain tier as far as it is known (their mod's upload first, then
   * the profile ingestion fetched, queued here when missing), or why it is not known.
   */
  async hotmTier(player: string): Promise<{ tier: number } | { reason: string }> {
    const tierOf = (progress: PlayerProgress) => {
      const skills = progress.skills ? new Map(Object.entries(progress.skills).map(([k, v]) => [k.toLowerCase(), v])) : undefined;
      return skills?.get('hotm') ?? skills?.get('heart of the mountain');
    };
    const fromMod = await this.uploaded.lookup(player, undefined);
    const uploaded = fromMod.status === 'known' ? tierOf(fromMod.progress) : undefined;
    if (uploaded !== undefined) return { tier: uploaded };
    if (!this.fetched) return { reason: fromMod.status === 'unavailable' ? `${fromMod.reason}, and no UPSTREAM_API_KEY for the profile endpoint` : 'no HotM tier uploaded' };
    const found = await this.fetched.lookup(player, undefined);
    if (found.status !== 'known') return { reason: found.reason };
    const fetched = tierOf(found.progress);
    return fetched === undefined ? { reason: 'the profile shows no HotM tier' } : { tier: fetched };
  }

  /** The item's craft cost against its price now, when it is in the current craft list (null otherwise). */
  async costOf(tag: string): Promise<{ craftCost: number; sellPrice: number; profit: number; craftedQuantity: number; market: string } | null> {
    const state = await this.craft.current();
    const found = state.profits.find((p) => p.itemId === tag);
    return found ? { craftCost: found.craftCost, sellPrice: found.sellPrice, profit: found.profit, craftedQuantity: found.craftedQuantity, market: found.market } : null;
  }

  /** Known: in the game data, or priced on the bazaar or the auction house right now. */
  private known(tag: string, prices?: PriceSource): boolean {
    return this.game.items.has(tag) || this.game.recipes.has(tag) || (prices !== undefined && (prices.bazaar(tag) !== undefined || prices.lowestBins(tag) !== undefined));
  }
}
