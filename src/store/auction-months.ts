/**
 * The partition month of an auction on PostgreSQL (migration 019, docs/storage.md "Time
 * partitioning of `auctions`"): `yyyymm` of a UTC calendar month (202611 = November 2026), so a
 * partition's name and bounds read as the month they hold. An auction's month is fixed the first
 * time either feed writes it (`auction_keys`) and never rewritten: the month of its start (the
 * listing's `start`, or for a sale first seen in auctions_ended the start estimated for it,
 * ingest/records.ts `saleStart`), its end when no start is stored.
 */

/** `yyyymm` of the UTC month holding `ms` (epoch milliseconds). */
export function monthOf(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 100 + d.getUTCMonth() + 1;
}

/** The month after `month` (`yyyymm`): a partition's exclusive upper bound. */
export function nextMonth(month: number): number {
  return month % 100 === 12 ? (Math.floor(month / 100) + 1) * 100 + 1 : month + 1;
}

/** The month an auction row is filed under when its key is first written. */
export function auctionMonth(row: { start_at: number | null; end_at: number }): number {
  return monthOf(row.start_at ?? row.end_at);
}

/** The name of the partition of `auctions` holding `month`. */
export function auctionPartition(month: number): string {
  if (!Number.isInteger(month) || month < 100_001 || month > 999_912) throw new Error(`not a partition month: ${month}`);
  return `auctions_m${month}`;
}
