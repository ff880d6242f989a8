/**
 * The single table's physical schema, shared by the CDK stack and the local runtime so both build
 * the same table. Key values are spelled only in keys.ts.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Items with this attribute (epoch seconds) are removed by DynamoDB's TTL. */
  timeToLive: 'expires_at',
  /**
   * The table's stream: new and old images (a deleted ticket's old image says which opening followup
   * ref to remove). Its consumers: ticket counts and collection repairs (store/table-changes.ts),
   * webhook dispatch (store/outbox.ts).
   */
  stream: 'NEW_AND_OLD_IMAGES',
  indexes: [
    /** Every item of every ticket collection, in ticket id order: list pages without a filter. */
    { name: 'gsi1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    /** The same items partitioned by their ticket's status: list pages filtered by `?status=`. */
    { name: 'gsi2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    /** Ticket items by submitter e-mail (sparse): user_tickets. */
    { name: 'gsi3', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
  ],
} as const;
