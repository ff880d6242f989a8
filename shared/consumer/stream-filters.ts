/**
 * The records each consumer of the table's stream takes, as filter patterns (domain/stream-filters.ts):
 * the union of every consumer's is the filter of the one event source mapping on AWS
 * (infra/stream-consumer.ts), and each consumer's own is applied in process by the fan-out
 * (consumer/fan-out.ts) on AWS and locally alike. Data only, so the CDK stack reads it too.
 */
import type { FilterPattern } from '../domain/stream-filters';
import { keys, MAIL_PREFIX, TICKET_SORT_KEY } from '../store/keys';

/**
 * What the ticket state, the change feed and time spent take: ticket items; followups and attachments
 * inserted, modified and removed; a merge's record; a mail log entry's bounce or complaint (the change
 * feed's mail.bounced and mail.complained: consumer/events-of.ts). Attachments modified and merge
 * records were missing from the AWS filter (the page snapshots of consumer/page-snapshots.ts read
 * them), which the local poller, unfiltered until the one reader, hid.
 */
export const TICKET_CHANGE_FILTERS: readonly FilterPattern[] = [
  { dynamodb: { Keys: { SK: { S: [TICKET_SORT_KEY] } } } },
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['followup', 'attachment', 'merged'] } } } },
  { eventName: ['MODIFY', 'REMOVE'], dynamodb: { OldImage: { type: { S: ['followup'] } } } },
  { eventName: ['MODIFY', 'REMOVE'], dynamodb: { OldImage: { type: { S: ['attachment'] } } } },
  {
    eventName: ['MODIFY'],
    dynamodb: {
      Keys: { PK: { S: [{ prefix: MAIL_PREFIX }] } },
      NewImage: { status: { S: ['bounced', 'complained'] } },
    },
  },
];

/**
 * The search index takes those, the custom field definitions (which values requesters may find) and the queues'
 * partition (a queue's language picks its tickets' stemming; the indexer passes over the slug claims and the
 * reservations, which change queue items too). One path with the definitions': one pattern of Lambda's five.
 */
export const SEARCH_FILTERS: readonly FilterPattern[] = [
  ...TICKET_CHANGE_FILTERS,
  { dynamodb: { Keys: { PK: { S: [keys.customFieldPartition, keys.queuePartition] } } } },
];

/** The consumers of consumer/table-changes.ts (STREAM_CONSUMERS), by name, each with its records. */
export const TABLE_CHANGE_CONSUMERS = {
  'ticket state': TICKET_CHANGE_FILTERS,
  'change feed': TICKET_CHANGE_FILTERS,
  'search index': SEARCH_FILTERS,
  'time spent': TICKET_CHANGE_FILTERS,
} as const satisfies Record<string, readonly FilterPattern[]>;

export type TableChangeConsumerName = keyof typeof TABLE_CHANGE_CONSUMERS;
