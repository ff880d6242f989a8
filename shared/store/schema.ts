/**
 * The single table's physical schema, shared by the CDK stack and the local runtime so both build
 * the same table. Key attributes, index names and key values are spelled only in keys.ts.
 */
import { INDEXES, KEY, LISTING_INDEXES } from './keys';

export const TABLE_SCHEMA = {
  partitionKey: KEY.partition,
  sortKey: KEY.sort,
  /** Items with this attribute (epoch seconds) are removed by DynamoDB's TTL. */
  timeToLive: 'expires_at',
  /**
   * The table's stream: new and old images (a deleted ticket's old image says which opening followup
   * ref to remove). Its consumers: ticket counts and collection repairs (consumer/table-changes.ts),
   * webhook dispatch (store/outbox.ts).
   */
  stream: 'NEW_AND_OLD_IMAGES',
  /** What each index is for: keys.ts. */
  indexes: [INDEXES.gsi1, INDEXES.gsi2, INDEXES.gsi3, INDEXES.gsi4],
} as const;

/**
 * The listings table (keys.ts LISTING_INDEXES): one item per ticket, an index per listing dimension. A table of its
 * own, so that its eight indexes came in one deploy (CloudFormation adds one index to a table per update), and its
 * writes make no records in the table's stream.
 */
export const LISTINGS_SCHEMA = {
  partitionKey: KEY.partition,
  /** Tombstones of deleted tickets expire (consumer/listings.ts). */
  timeToLive: 'expires_at',
  indexes: Object.values(LISTING_INDEXES),
} as const;

/** An index of either table as its schema names it. */
export type IndexSchema = (typeof TABLE_SCHEMA.indexes)[number] | (typeof LISTINGS_SCHEMA.indexes)[number];

/**
 * What an index projects: every attribute or keys only (the table's), keys only or (an agent view's listing index)
 * keys and what its entries carry (the listings table's).
 */
export function projectionOf(index: IndexSchema): { type: 'ALL' | 'KEYS_ONLY' | 'INCLUDE'; attributes?: string[] } {
  if ('projection' in index) return { type: index.projection };
  return index.carries ? { type: 'INCLUDE', attributes: [...index.carries] } : { type: 'KEYS_ONLY' };
}
