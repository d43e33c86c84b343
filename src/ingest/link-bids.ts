/**
 * Account linking through bids: after a generation is stored, the bids it brought are
 * matched against open linking challenges (see store/repositories/mod-links.ts). A
 * failure here is logged and never fails the ingestion cycle.
 */
import type { IngestContext } from './context.ts';
import type { SeenBid } from '../store/repositories/mod-links.ts';

export async function linkAccountsFromBids(ctx: IngestContext, bids: readonly SeenBid[]): Promise<void> {
  if (bids.length === 0) return;
  try {
    const linked = await ctx.store.modLinks.linkFromBids(bids, ctx.clock.now());
    for (const l of linked) ctx.logger.info({ account: l.accountId, player: l.playerUuid }, 'account linked by bid');
  } catch (err) {
    ctx.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'account linking from bids failed');
  }
}
