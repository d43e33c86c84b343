/**
 * The columns of an auction archive export (CSV): the base columns, and the two groups the
 * request's flags may add. Shared by the route that queues an export and the job that writes it.
 */
export const EXPORT_COLUMNS = ['uuid', 'itemTag', 'itemName', 'highestBidAmount', 'bin', 'startedAt', 'endedAt', 'sellerUuid', 'highestBidderUuid', 'itemUid'] as const;
export type ExportColumn = (typeof EXPORT_COLUMNS)[number];
/** Columns the IncludeSocial flag adds: the players' names as skymarket has seen them (empty when unknown). */
export const SOCIAL_COLUMNS = ['sellerName', 'highestBidderName'] as const;
/**
 * Columns the InventoryCheck flag adds, answered from auction data (skymarket holds no
 * inventories): whether the same item (by uid) is listed right now, and how many later
 * sales of it are recorded.
 */
export const INVENTORY_COLUMNS = ['itemListedNow', 'itemLaterSales'] as const;
