/**
 * skymarket's own item icon: a tile in the item's rarity colour with the initials of its name.
 * The service runs offline and holds no textures, so it draws what it knows instead of linking
 * to a third-party image host.
 */
import { initials } from './item-names.ts';

/** The game's rarity colours (the formatting code each tier's name is shown in). */
const TIER_COLOURS: Record<string, string> = {
  COMMON: '#FFFFFF',
  UNCOMMON: '#55FF55',
  RARE: '#5555FF',
  EPIC: '#AA00AA',
  LEGENDARY: '#FFAA00',
  MYTHIC: '#FF55FF',
  DIVINE: '#55FFFF',
  SPECIAL: '#FF5555',
  VERY_SPECIAL: '#FF5555',
  ULTIMATE: '#AA0000',
  ADMIN: '#AA0000',
};
const UNKNOWN_TIER = '#AAAAAA';

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An SVG tile (64×64) for an item: rarity-coloured border, up to three initials, the name as its title. */
export function itemIconSvg(name: string, tier: string | null): string {
  const colour = (tier && TIER_COLOURS[tier]) ?? UNKNOWN_TIER;
  const letters = initials(name).replace(/[^a-z0-9]/g, '').slice(0, 3).toUpperCase() || '?';
  const size = letters.length > 2 ? 22 : 28;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img">` +
    `<title>${escapeXml(name)}</title>` +
    `<rect x="2" y="2" width="60" height="60" rx="10" fill="#1e1e2a" stroke="${colour}" stroke-width="4"/>` +
    `<text x="32" y="33" fill="${colour}" font-family="sans-serif" font-weight="700" font-size="${size}" text-anchor="middle" dominant-baseline="central">${letters}</text>` +
    `</svg>`
  );
}
