/**
 * Where game data comes from, in order of precedence:
 * 1. `GAME_DATA_DIR`: a NotEnoughUpdates repository checkout (an operator's own clone);
 * 2. the copy `skymarket gamedata sync` downloaded into `DATA_DIR/gamedata/neu-repo`;
 * 3. the built-in catalog the simulator uses.
 * NPC sell prices are not part of game data: they come from the upstream items resource.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { builtinGameData } from './builtin.ts';
import { isNeuRepository, loadNeuRepository } from './neu.ts';
import type { GameData } from './types.ts';

export type { GameData } from './types.ts';

/** The directory `gamedata sync` unpacks into. */
export function syncedGameDataPath(dataDir: string): string {
  return join(dataDir, 'gamedata', 'neu-repo');
}

export interface GameDataLocations {
  gameDataDir?: string | undefined;
  dataDir: string;
}

/** Loads game data from the first available source. A configured GAME_DATA_DIR that is not a NEU repository is an error. */
export function loadGameData(locations: GameDataLocations): GameData {
  if (locations.gameDataDir) {
    if (!existsSync(locations.gameDataDir)) throw new Error(`GAME_DATA_DIR ${locations.gameDataDir} does not exist`);
    return loadNeuRepository(locations.gameDataDir, 'directory');
  }
  const synced = syncedGameDataPath(locations.dataDir);
  if (isNeuRepository(synced)) return loadNeuRepository(synced, 'synced');
  return builtinGameData();
}
