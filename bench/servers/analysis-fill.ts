/**
 * Fills a data directory for bench/analysis.ts: `sales` sales of HOT_ITEM spread over `days`
 * days (newest a minute ago), 60,000 sales of 200 other tags over the same days, and a Premium
 * account; prints `{"token": …}`. Kept free of anything newer than the store's recordSales and
 * accounts.create, so the same file fills a store for an older checkout (the baseline) too.
 * Usage: node --import tsx bench/servers/analysis-fill.ts <data dir> <sales> <days>
 */
import { Store } from '../../src/store/index.ts';
import type { AuctionsTable } from '../../src/store/schema.ts';
import { syntheticSale } from './synthetic-sale.ts';

const DAY = 86_400_000;
const [dir, salesArg, daysArg] = process.argv.slice(2);
if (!dir || !salesArg || !daysArg) throw new Error('usage: analysis-fill.ts <data dir> <sales> <days>');
const hot = Number(salesArg);
const days = Number(daysArg);
const other = 60_000;
const total = hot + other;

const store = await Store.open({ dataDir: dir });
const now = Date.now();
try {
  for (let done = 0; done < total; done += 10_000) {
    const rows: AuctionsTable[] = [];
    for (let i = done; i < Math.min(total, done + 10_000); i++) {
      const tag = i < hot ? 'HOT_ITEM' : `TAG_${i % 200}`;
      // Spread evenly over the window, in an order unrelated to i.
      const slot = i < hot ? (i * 7919) % hot : (i * 7919) % other;
      const soldAt = now - 60_000 - Math.floor((slot / (i < hot ? hot : other)) * (days * DAY - 120_000));
      const price = 1_000_000 + ((i * 104_729) % 500_000);
      rows.push(
        syntheticSale(i, { uuid: `a${i.toString(16).padStart(31, '0')}`, tag, soldAt, price, count: 1 + (i % 7 === 0 ? 1 : 0), startAt: i % 11 === 0 ? null : soldAt - ((i * 31) % 7200) * 1000 }),
      );
    }
    await store.auctions.recordSales(rows, [], { name: 'auctions_ended', lastUpdated: now, storedAt: now, records: rows.length, source: 'simulator' });
  }
  const { token } = await store.accounts.create({ tier: 'premium', now });
  process.stdout.write(`${JSON.stringify({ token })}\n`);
} finally {
  await store.close();
}
