/**
 * What a proxied upload (POST /api/data/proxy) is, judged by its JSON structure: the
 * upstream responses the mod can fetch on a player's behalf. Pure: no I/O.
 */
export const PROXY_KINDS = ['auctions_page', 'player_auctions', 'auctions_ended', 'bazaar', 'profiles'] as const;
export type ProxyKind = (typeof PROXY_KINDS)[number];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function allObjects(v: unknown, check: (o: Record<string, unknown>) => boolean): boolean {
  return Array.isArray(v) && v.every((e) => isObject(e) && check(e));
}

/**
 * - `auctions_page`: /v2/skyblock/auctions (success, page, totalPages, auctions[] with uuid and item_bytes)
 * - `player_auctions`: /v2/skyblock/auction?player= (success, auctions[] with uuid and auctioneer, no page)
 * - `auctions_ended`: /v2/skyblock/auctions_ended (success, auctions[] with auction_id, buyer and price)
 * - `bazaar`: /v2/skyblock/bazaar (success, products object)
 * - `profiles`: /v2/skyblock/profiles (success, profiles[] with profile_id)
 */
export function classifyUpload(body: unknown): ProxyKind | undefined {
  if (!isObject(body) || body['success'] !== true) return undefined;
  const auctions = body['auctions'];
  if (Array.isArray(auctions)) {
    if (typeof body['page'] === 'number' && typeof body['totalPages'] === 'number') {
      return allObjects(auctions, (a) => typeof a['uuid'] === 'string' && typeof a['item_bytes'] === 'string') ? 'auctions_page' : undefined;
    }
    if (allObjects(auctions, (a) => typeof a['auction_id'] === 'string' && typeof a['price'] === 'number' && typeof a['buyer'] === 'string')) {
      return 'auctions_ended';
    }
    if (allObjects(auctions, (a) => typeof a['uuid'] === 'string' && typeof a['auctioneer'] === 'string')) return 'player_auctions';
    return undefined;
  }
  if (isObject(body['products'])) return 'bazaar';
  if (allObjects(body['profiles'], (p) => typeof p['profile_id'] === 'string')) return 'profiles';
  return undefined;
}
