/**
 * Copper from greenhouse crops: what analysing one item costs and how much copper it yields.
 *
 * Source: NOT in the NEU repository (its `constants/garden.json` has crop milestones, visitors,
 * plots and composter data; `constants/skymart.json` has SkyMart copper *prices*, used to value
 * copper, not yields). The established service keeps its constants private. This table is
 * hand-written over the simulator's greenhouse products; values are illustrative estimates,
 * not game data. Replace the rows when an authoritative table exists.
 */
export interface CopperYield {
  /** bazaar product id of the crop */
  tag: string;
  /** coins to analyse one item */
  analyzeCost: number;
  /** copper one analysed item yields */
  copperYield: number;
}

export const COPPER_YIELDS: readonly CopperYield[] = [
  { tag: 'MOONFLOWER', analyzeCost: 2, copperYield: 0.02 },
  { tag: 'ENCHANTED_MOONFLOWER', analyzeCost: 200, copperYield: 4 },
  { tag: 'COMPACTED_MOONFLOWER', analyzeCost: 20_000, copperYield: 700 },
  { tag: 'DOUBLE_PLANT', analyzeCost: 2, copperYield: 0.02 },
  { tag: 'ENCHANTED_SUNFLOWER', analyzeCost: 200, copperYield: 3.5 },
  { tag: 'COMPACTED_SUNFLOWER', analyzeCost: 20_000, copperYield: 650 },
  { tag: 'WILD_ROSE', analyzeCost: 2, copperYield: 0.018 },
  { tag: 'ENCHANTED_WILD_ROSE', analyzeCost: 200, copperYield: 3 },
  { tag: 'COMPACTED_WILD_ROSE', analyzeCost: 20_000, copperYield: 600 },
];
