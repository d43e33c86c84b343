/**
 * An item's values in the bulk price files (services/bulk-prices.ts), for its page: the item's
 * key read from each file's map.
 */
import { eliteIdOf } from '../domain/bulk-prices.ts';
import { neuIdOf, type NeuIdSubject } from '../domain/item-names.ts';
import { AVERAGE_DAYS, type BulkPricesService } from '../services/bulk-prices.ts';

export interface BulkValue {
  file: string;
  /** where the file is served */
  path: string;
  key: string;
  value: number | null;
}

/** A price file's map (every value of these files is a number). */
function valuesOf(value: Readonly<Record<string, unknown>>): Readonly<Record<string, number>> {
  return value as Readonly<Record<string, number>>;
}

/** The item's (as the subject, e.g. its cheapest listing) value in each bulk file. */
export async function bulkValues(service: BulkPricesService, item: NeuIdSubject): Promise<BulkValue[]> {
  const neu = neuIdOf(item);
  const elite = eliteIdOf(item);
  const out: BulkValue[] = [];
  for (const [file, path, key] of [
    ['neu/lowestbin', '/neu/lowestbin.json', neu],
    ['elite/raw', '/resources/auctions/neu?mode=raw', elite],
    ['elite/smooth', '/resources/auctions/neu?mode=smooth', elite],
  ] as const) {
    const prepared = await service.file(file);
    out.push({ file, path, key, value: valuesOf(prepared.value)[key] ?? null });
  }
  // The averages, once the price rollups have closed an hour.
  for (const days of AVERAGE_DAYS) {
    for (const [file, path, key] of [
      [`neu/auction_averages_lbin/${days}day`, `/neu/auction_averages_lbin/${days}day.json`, neu],
      [`elite/average-lbin/${days}day`, `/resources/auctions/neu/average-lbin/${days}day`, elite],
    ] as const) {
      const prepared = await service.averagesFile(file);
      if (prepared) out.push({ file, path, key, value: valuesOf(prepared.value)[key] ?? null });
    }
  }
  return out;
}
