/**
 * Shard fusion recipes: two kinds of attribute shards in, shards of a third kind out.
 *
 * Source: NOT in the NEU repository (its `constants/attribute_shards.json` lists the shards,
 * their rarities and families, but no fusion recipes), and the established service keeps its
 * table private. Until the game-data loader reads an authoritative table, this is a small,
 * hand-written table over the simulator's shard products (real bazaar names `SHARD_*`).
 * The quantities are illustrative, not the game's; replace the rows, not the model, when real
 * data is available. Chains (an output used as another recipe's input) exist so multi-step
 * fusion has something to find.
 */
export interface FusionRecipe {
  /** shard product id → count consumed */
  inputs: Readonly<Record<string, number>>;
  output: string;
  outputCount: number;
}

export const FUSION_RECIPES: readonly FusionRecipe[] = [
  { inputs: { SHARD_SHEEP: 2, SHARD_CHILL: 2 }, output: 'SHARD_MIST', outputCount: 2 },
  { inputs: { SHARD_SALMON: 3, SHARD_DROWNED: 2 }, output: 'SHARD_LAPIS_SKELETON', outputCount: 1 },
  { inputs: { SHARD_MIST: 4, SHARD_CROW: 2 }, output: 'SHARD_LAPIS_SKELETON', outputCount: 4 },
  { inputs: { SHARD_MOSSYBIT: 3, SHARD_SPIDER: 3 }, output: 'SHARD_CROW', outputCount: 2 },
  { inputs: { SHARD_GHAST: 2, SHARD_BLAZE: 2 }, output: 'SHARD_ZEALOT', outputCount: 1 },
  { inputs: { SHARD_ZEALOT: 3, SHARD_LAPIS_SKELETON: 3 }, output: 'SHARD_PYTHON', outputCount: 1 },
  { inputs: { SHARD_PYTHON: 2, SHARD_SEA_SERPENT: 1 }, output: 'SHARD_GRIFFIN', outputCount: 2 },
  { inputs: { SHARD_GRIFFIN: 3, SHARD_STARBORN: 1 }, output: 'SHARD_YETI', outputCount: 1 },
  { inputs: { SHARD_YETI: 2, SHARD_STARBORN: 2 }, output: 'SHARD_PHOENIX', outputCount: 1 },
  { inputs: { SHARD_PHOENIX: 1, SHARD_YETI: 2 }, output: 'SHARD_TIAMAT', outputCount: 1 },
];
