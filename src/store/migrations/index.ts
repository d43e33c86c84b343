/**
 * The one ordered list of migrations, run on SQLite and PostgreSQL alike.
 * Each migration receives the dialect so the rare dialect-specific statement
 * (types, partitioning) can live next to the portable one.
 * Never edit a released migration: add a new one.
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { m001Initial } from './001-initial.ts';
import { m002Market } from './002-market.ts';
import { m003Auth } from './003-auth.ts';
import { m004BazaarHistory } from './004-bazaar-history.ts';
import { m005Auctions } from './005-auctions.ts';
import { m008Mod } from './008-mod.ts';
import { m009UploadKindIndex } from './009-upload-kind-index.ts';
import { m010BazaarCompact } from './010-bazaar-compact.ts';
import { m011BazaarChunks } from './011-bazaar-chunks.ts';
import { m012SaleRollups } from './012-sale-rollups.ts';
import { m013AuctionStorage } from './013-auction-storage.ts';
import { m014UploadBytes } from './014-upload-bytes.ts';
import { m015ExportLease } from './015-export-lease.ts';
import { m016ProfileRequests } from './016-profile-requests.ts';
import { m017PriceRollups } from './017-price-rollups.ts';
import { m018ItemUidSales } from './018-item-uid-sales.ts';
import { m019AuctionPartitions } from './019-auction-partitions.ts';
import { m020ProfileRequestClient } from './020-profile-request-client.ts';
import { m021Alerts } from './021-alerts.ts';

export type DialectMigration = (dialect: Dialect) => Migration;

const ordered: Array<[string, DialectMigration]> = [
  ['001-initial', m001Initial],
  ['002-market', m002Market],
  ['003-auth', m003Auth],
  ['004-bazaar-history', m004BazaarHistory],
  ['005-auctions', m005Auctions],
  ['008-mod', m008Mod],
  ['009-upload-kind-index', m009UploadKindIndex],
  ['010-bazaar-compact', m010BazaarCompact],
  ['011-bazaar-chunks', m011BazaarChunks],
  ['012-sale-rollups', m012SaleRollups],
  ['013-auction-storage', m013AuctionStorage],
  ['014-upload-bytes', m014UploadBytes],
  ['015-export-lease', m015ExportLease],
  ['016-profile-requests', m016ProfileRequests],
  ['017-price-rollups', m017PriceRollups],
  ['018-item-uid-sales', m018ItemUidSales],
  ['019-auction-partitions', m019AuctionPartitions],
  ['020-profile-request-client', m020ProfileRequestClient],
  ['021-alerts', m021Alerts],
];

/** The migration that creates a database's first tables: it runs only on an empty database. */
export const FIRST_MIGRATION = ordered[0]![0];

export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(ordered.map(([name, make]) => [name, make(dialect)]));
}
