/** What a DynamoDB call needs from IAM, and whether grants allow it (shared/api/table-access.ts). */
import { describe, expect, it } from 'vitest';
import {
  allows,
  grantsOf,
  tableRequests,
  writesTable,
  GRANTS,
  STREAM_CONSUMER_GRANTS,
  type TableGrant,
} from '../../shared/api/table-access';
import { keys } from '../../shared/store/keys';
import { routeByHandler, routes } from '../../shared/api/routes';

describe('tableRequests', () => {
  it('names a call on the listings table as such, and only a listings grant allows it', () => {
    const query = tableRequests(
      'Query',
      {
        TableName: 'helpdesk-listings',
        IndexName: 'queue',
        ExpressionAttributeValues: { ':pk': 'LIST#queue#1' },
      },
      'helpdesk-listings',
    );
    expect(query).toEqual([{ action: 'Query', partition: 'LIST#queue#1', index: 'queue', listings: true }]);
    const write = tableRequests(
      'BatchWriteItem',
      {
        RequestItems: { 'helpdesk-listings': [{ PutRequest: { Item: { PK: 'LISTED#1' } } }] },
      },
      'helpdesk-listings',
    );
    expect(write).toEqual([{ action: 'BatchWriteItem', partition: 'LISTED#1', listings: true }]);
    // The table's own grants, however broad, do not reach it; a listings grant reaches nothing else.
    const tableOnly: TableGrant[] = [{ index: 'gsi1' }, { actions: ['BatchWriteItem'], keys: ['*'] }];
    expect(allows(tableOnly, query[0]!)).toBe(false);
    expect(allows(tableOnly, write[0]!)).toBe(false);
    expect(allows([{ listings: ['Query'] }], query[0]!)).toBe(true);
    expect(allows([{ listings: ['Query'] }], write[0]!)).toBe(false);
    expect(allows(GRANTS.filteredTickets, query[0]!)).toBe(true);
    expect(allows(STREAM_CONSUMER_GRANTS, write[0]!)).toBe(true);
    const onTable = tableRequests(
      'BatchWriteItem',
      {
        RequestItems: { helpdesk: [{ PutRequest: { Item: { PK: 'LISTED#1' } } }] },
      },
      'helpdesk-listings',
    );
    expect(allows([{ listings: ['BatchWriteItem'] }], onTable[0]!)).toBe(false);
  });

  it('names one action per item, on its partition key, for every command the functions send', () => {
    expect(tableRequests('GetItem', { Key: { PK: 'USER#a', SK: 'USER' } })).toEqual([
      { action: 'GetItem', partition: 'USER#a' },
    ]);
    expect(tableRequests('PutItem', { Item: { PK: 'TICKET#1', SK: 'TICKET' } })).toEqual([
      { action: 'PutItem', partition: 'TICKET#1' },
    ]);
    expect(
      tableRequests('Query', { IndexName: 'gsi2', ExpressionAttributeValues: { ':pk': 'TICKETS#STATUS#1' } }),
    ).toEqual([{ action: 'Query', partition: 'TICKETS#STATUS#1', index: 'gsi2' }]);
    expect(
      tableRequests('BatchGetItem', { RequestItems: { t: { Keys: [{ PK: 'QUEUES' }, { PK: 'USERS' }] } } }).map(
        (r) => r.partition,
      ),
    ).toEqual(['QUEUES', 'USERS']);
    expect(
      tableRequests('TransactWriteItems', {
        TransactItems: [
          { Put: { Item: { PK: 'TICKET#1' } } },
          { ConditionCheck: { Key: { PK: 'QUEUES' } } },
          { Delete: { Key: { PK: 'FILE_CLEANUPS' } } },
        ],
      }),
    ).toEqual([
      { action: 'PutItem', partition: 'TICKET#1' },
      { action: 'ConditionCheckItem', partition: 'QUEUES' },
      { action: 'DeleteItem', partition: 'FILE_CLEANUPS' },
    ]);
    expect(
      tableRequests('BatchWriteItem', {
        RequestItems: {
          t: [
            { PutRequest: { Item: { PK: 'EVENTS', SK: 'a' } } },
            { DeleteRequest: { Key: { PK: 'EVENTS', SK: 'b' } } },
          ],
        },
      }),
    ).toEqual([
      { action: 'BatchWriteItem', partition: 'EVENTS' },
      { action: 'BatchWriteItem', partition: 'EVENTS' },
    ]);
    expect(() => tableRequests('Scan', {})).toThrow(/not an operation the functions call/);
  });
});

describe('the change feed grants', () => {
  it(
    'only the stream consumer writes the feed, in batches, and nothing else that way; only the feed route reads ' +
      'it',
    () => {
      expect(allows(STREAM_CONSUMER_GRANTS, { action: 'BatchWriteItem', partition: 'EVENTS' })).toBe(true);
      expect(allows(STREAM_CONSUMER_GRANTS, { action: 'BatchWriteItem', partition: 'TICKET#1' })).toBe(false);
      expect(allows(STREAM_CONSUMER_GRANTS, { action: 'Query', partition: 'CUSTOM_FIELDS' })).toBe(true);
      expect(allows(STREAM_CONSUMER_GRANTS, { action: 'PutItem', partition: 'CUSTOM_FIELDS' })).toBe(false);
      for (const route of routes) {
        expect(allows(grantsOf(route), { action: 'BatchWriteItem', partition: 'EVENTS' }), route.handler).toBe(false);
        expect(allows(grantsOf(route), { action: 'Query', partition: 'EVENTS' }), route.handler).toBe(
          route.handler === 'events/list',
        );
      }
    },
  );
});

describe('allows', () => {
  const grants = [...GRANTS.readTickets, ...GRANTS.listTickets];
  it('matches partition patterns as IAM StringLike does, and indexes by name', () => {
    expect(allows(grants, { action: 'Query', partition: 'TICKET#12' })).toBe(true);
    expect(allows(grants, { action: 'Query', partition: 'TICKETS' })).toBe(false);
    expect(allows(grants, { action: 'PutItem', partition: 'TICKET#12' })).toBe(false);
    expect(allows(grants, { action: 'Query', partition: 'TICKETS', index: 'gsi1' })).toBe(true);
    expect(allows(grants, { action: 'Query', partition: 'SUBMITTER#a@b', index: 'gsi3' })).toBe(false);
    expect(allows(grants, { action: 'Query', partition: 'TICKET#1\n2' })).toBe(true); // `*` spans newlines too
  });
});

describe('the route grants', () => {
  it('every route authenticates; only POSTs keep Idempotency-Keys', () => {
    for (const route of routes) {
      const grants = grantsOf(route);
      expect(allows(grants, { action: 'GetItem', partition: 'USER#x' }), route.handler).toBe(true);
      expect(allows(grants, { action: 'UpdateItem', partition: 'LOGIN#x' }), route.handler).toBe(true);
      expect(allows(grants, { action: 'PutItem', partition: 'IDEMPOTENCY#x' }), route.handler).toBe(
        route.method === 'POST',
      );
    }
  });

  it('no route writes the counts, which only the stream consumer keeps', () => {
    for (const route of routes) {
      for (const action of ['PutItem', 'UpdateItem', 'DeleteItem'] as const) {
        expect(allows(grantsOf(route), { action, partition: 'COUNTS#ticket' }), route.handler).toBe(false);
        expect(allows(grantsOf(route), { action, partition: 'COUNTED#1' }), route.handler).toBe(false);
      }
    }
  });

  it('reads write nothing of their own; GET routes are readers', () => {
    // The one exception: the change feed's first read makes the key its cursors are signed with
    // (store/change-feed.ts feedCursorKey), one conditional PutItem on that key's own partition.
    const cursorKeyGrant = (grant: TableGrant) =>
      'actions' in grant && grant.keys.every((k) => k === keys.feedCursorKeyPartition);
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const table =
        route.handler === 'events/list' ? route.table.filter((grant) => !cursorKeyGrant(grant)) : route.table;
      expect(writesTable({ table }), route.handler).toBe(false);
    }
    const feed = grantsOf(routeByHandler('events/list'));
    expect(allows(feed, { action: 'PutItem', partition: keys.feedCursorKeyPartition })).toBe(true);
    for (const action of ['UpdateItem', 'DeleteItem', 'BatchWriteItem'] as const) {
      expect(allows(feed, { action, partition: keys.feedCursorKeyPartition }), action).toBe(false);
    }
    expect(writesTable(routeByHandler('tickets/create'))).toBe(true);
    expect(writesTable(routeByHandler('webhook-deliveries/redeliver'))).toBe(true);
  });
});
