/**
 * Benchmark target: the real app on a throwaway SQLite store seeded with 20,000 lowball
 * offers (2,000 of them for HYPERION, a quarter of those heroic). Prints its URL.
 */
import { randomUUID } from 'node:crypto';
import { serveBenchApp, THROUGHPUT_ENV } from './serve-app.ts';

const now = Date.now();
const PLAYER = '0123456789abcdef0123456789abcdef';
await serveBenchApp({
  env: THROUGHPUT_ENV,
  seed: async (store) => {
    await store.lowball.createMany(
      Array.from({ length: 20_000 }, (_, i) => {
        const tag = i % 10 === 0 ? 'HYPERION' : `ITEM_${i % 97}`;
        return {
          offerId: randomUUID(),
          accountId: 1 + (i % 50),
          playerUuid: PLAYER,
          itemTag: tag,
          itemName: tag,
          itemCount: 1,
          askingPrice: 1_000_000 + i,
          filters: { reforge: i % 40 === 0 ? 'heroic' : 'fabled', stars: String(i % 6), ultimate_wise: '5' },
          auctionJson: JSON.stringify({ tag, itemName: tag, startingBid: 1_000_000 + i }),
          lore: '§7Damage: §c+260\n§d§lMYTHIC DUNGEON SWORD',
          createdAt: now - i * 1000,
        };
      }),
    );
  },
});
