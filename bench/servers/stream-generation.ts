/**
 * The events of one 60,000-auction generation as the market derives them (2,000 `auction.new`,
 * 2,000 `auction.sold`, 1,000 `lbin.changed` with simulator-like items, and the `generation` event
 * that closes the batch): what bench/servers/stream.ts hands to the hub and
 * bench/servers/stream-bare.ts writes to its sockets.
 */
import { randomBytes } from 'node:crypto';
import type { DraftEvent } from '../../src/domain/stream-events.ts';

const TAGS = ['HYPERION', 'TERMINATOR', 'PET_ENDER_DRAGON', 'ASPECT_OF_THE_END', 'NECRON_CHESTPLATE', 'JUJU_SHORTBOW', 'ENCHANTMENT_ULTIMATE_WISE_5', 'WITHER_GOGGLES'];
const hex = (n: number) => randomBytes(n).toString('hex');

function item(i: number) {
  return {
    itemName: `§6Heroic ${TAGS[i % TAGS.length]!.toLowerCase()} ✪✪✪✪✪`,
    count: 1,
    tier: i % 3 === 0 ? 'LEGENDARY' : 'EPIC',
    reforge: 'heroic',
    itemUid: hex(6),
    itemCreatedAt: Date.now() - i * 1000,
    enchantments: { sharpness: 6, critical: 6, ender_slayer: 6, giant_killer: 6, ultimate_wise: 5 },
    flatNbt: { uid: hex(6), uuid: `${hex(4)}-${hex(2)}-${hex(2)}-${hex(2)}-${hex(6)}`, upgrade_level: '5', hot_potato_count: '15', rarity_upgrades: '1', modifier: 'heroic', 'gems.COMBAT_0': 'PERFECT' },
  };
}

export function generation(): DraftEvent[] {
  const now = Date.now();
  const events: DraftEvent[] = [];
  for (let i = 0; i < 2000; i++) {
    events.push({ topic: 'auction.new', time: now, uuid: hex(16), tag: TAGS[i % TAGS.length]!, variant: null, price: 1_000_000 + i, bin: true, startingBid: 1_000_000 + i, highestBid: 0, seller: hex(16), start: now, end: now + 86_400_000, item: item(i) });
  }
  for (let i = 0; i < 2000; i++) {
    events.push({ topic: 'auction.sold', time: now, uuid: hex(16), tag: TAGS[i % TAGS.length]!, variant: null, price: 900_000 + i, bin: true, buyer: hex(16), seller: hex(16), soldAt: now - 1000, item: item(i) });
  }
  for (let i = 0; i < 1000; i++) {
    events.push({ topic: 'lbin.changed', time: now, tag: `${TAGS[i % TAGS.length]!}_${i}`, variant: null, oldPrice: 1_000_000 + i, newPrice: 990_000 + i, listing: { uuid: hex(16), price: 990_000 + i, seller: hex(16), end: now + 86_400_000, item: item(i) } });
  }
  events.push({ topic: 'generation', time: now, feed: 'auctions', lastUpdated: now, counts: { new: 2000, sold: 2000, ended: 0, lbinChanged: 1000 } });
  return events;
}
