/** The ticket list's filters and ordering: which index a query asks for, and the 400s (domain/ticket-list-query.ts). */
import { describe, expect, it } from 'vitest';
import {
  countSourceOf,
  CREATION_SPAN_MS,
  idFloorOf,
  ORDERINGS,
  parseTicketListQuery,
  stillMatches,
} from '../../shared/domain/ticket-list-query';
import { ValidationError } from '../../shared/domain/errors';
import type { Ticket } from '../../shared/domain/records';

describe('parseTicketListQuery', () => {
  const source = (query: Record<string, string>) => {
    const parsed = parseTicketListQuery(query);
    return parsed.kind === 'listing'
      ? { source: parsed.source, residual: Object.keys(parsed.residual).sort(), ascending: parsed.ascending }
      : parsed;
  };

  it("no parameter, or status alone in id order, is upstream's list (gsi1 / gsi2)", () => {
    expect(parseTicketListQuery({})).toEqual({ kind: 'ids', ascending: true });
    expect(parseTicketListQuery({ queue: ' ', ordering: '' })).toEqual({ kind: 'ids', ascending: true });
    expect(parseTicketListQuery({ status: '1,3', ordering: '-id' })).toEqual({
      kind: 'ids',
      statuses: new Set([1, 3]),
      ascending: false,
    });
  });

  it('each filter alone names its partition, with its default ordering', () => {
    expect(source({ queue: '007' })).toEqual({
      source: { dimension: 'queue', values: ['7'] },
      residual: [],
      ascending: true,
    });
    expect(source({ assigned_to: 'None' })).toEqual({
      source: { dimension: 'assigned', values: ['none'] },
      residual: [],
      ascending: true,
    });
    expect(source({ assigned_to: '12', ordering: '-id' })).toEqual({
      source: { dimension: 'assigned', values: ['12'] },
      residual: [],
      ascending: false,
    });
    expect(source({ priority: '5' })).toEqual({
      source: { dimension: 'priority', values: ['5'] },
      residual: [],
      ascending: true,
    });
    expect(source({ submitter_email: 'a@b.c' })).toEqual({
      source: { dimension: 'submitter', email: 'a@b.c' },
      residual: [],
      ascending: true,
    });
    expect(source({ updated_since: '2030-01-02T03:04:05+01:00' })).toEqual({
      source: { dimension: 'modified', since: '2030-01-02T02:04:05.000000Z' },
      residual: [],
      ascending: true,
    });
    expect(source({ created_since: '2030-01-02', ordering: '-created' })).toEqual({
      source: { dimension: 'created', since: '2030-01-02T00:00:00.000000Z' },
      residual: [],
      ascending: false,
    });
    expect(source({ ordering: '-modified' })).toEqual({
      source: { dimension: 'modified' },
      residual: [],
      ascending: false,
    });
  });

  it('the agent views have partitions of their own, one per status asked for', () => {
    expect(source({ status: 'open,reopened', queue: '2' })).toEqual({
      source: { dimension: 'status-queue', values: ['1#2', '2#2'] },
      residual: [],
      ascending: true,
    });
    expect(source({ status: '1', assigned_to: 'none', ordering: '-id' })).toEqual({
      source: { dimension: 'status-assigned', values: ['1#none'] },
      residual: [],
      ascending: false,
    });
    // Status × queue × assignee: an agent's status × assignee partitions kept by the queue their records carry; the
    // unassigned, the queue's status × queue ones kept by `none`.
    expect(source({ status: '3', queue: '2', assigned_to: '7' })).toEqual({
      source: { dimension: 'status-assigned', values: ['3#7'], carrying: ['2'] },
      residual: [],
      ascending: true,
    });
    expect(source({ status: '1,3', queue: '2', assigned_to: 'none', ordering: '-id' })).toEqual({
      source: { dimension: 'status-queue', values: ['1#2', '3#2'], carrying: ['none'] },
      residual: [],
      ascending: false,
    });
  });

  it('the agent views in every ordering, from their own partitions (a time order from its own since on)', () => {
    expect(source({ status: '1', queue: '2', ordering: 'modified' })).toEqual({
      source: { dimension: 'status-queue@modified', values: ['1#2'] },
      residual: [],
      ascending: true,
    });
    expect(source({ status: '1,3', assigned_to: 'none', ordering: '-due_date' })).toEqual({
      source: { dimension: 'status-assigned@due', values: ['1#none', '3#none'] },
      residual: [],
      ascending: false,
    });
    expect(source({ status: '1', queue: '2', assigned_to: '7', ordering: 'priority' })).toEqual({
      source: { dimension: 'status-assigned@priority', values: ['1#7'], carrying: ['2'] },
      residual: [],
      ascending: true,
    });
    expect(source({ status: '1', queue: '2', created_since: '2030-01-01', ordering: '-created' })).toEqual({
      source: { dimension: 'status-queue@created', values: ['1#2'], since: '2030-01-01T00:00:00.000000Z' },
      residual: [],
      ascending: false,
    });
    expect(source({ status: '1', queue: '2', created_since: '2030-01-01', ordering: 'priority' })).toEqual({
      source: { dimension: 'status-queue@priority', values: ['1#2'] },
      residual: ['createdSince'],
      ascending: true,
    });
  });

  it('any other combination reads the most selective partition and checks the rest on the tickets', () => {
    expect(source({ status: '1', queue: '2', priority: '3', submitter_email: 'a@b.c' })).toEqual({
      source: { dimension: 'status-queue', values: ['1#2'] },
      residual: ['email', 'priority'],
      ascending: true,
    });
    expect(source({ queue: '2', assigned_to: '7' })).toEqual({
      source: { dimension: 'queue', values: ['2'] },
      residual: ['assignee'],
      ascending: true,
    });
    expect(source({ status: '1', priority: '3' })).toEqual({
      source: { dimension: 'priority', values: ['3'] },
      residual: ['statuses'],
      ascending: true,
    });
    expect(source({ queue: '2', ordering: 'modified' })).toEqual({
      source: { dimension: 'modified' },
      residual: ['queue'],
      ascending: true,
    });
    expect(source({ status: '1', ordering: '-priority' })).toEqual({
      source: { dimension: 'all@priority' },
      residual: ['statuses'],
      ascending: false,
    });
    expect(source({ assigned_to: '4', ordering: 'due_date' })).toEqual({
      source: { dimension: 'all@due' },
      residual: ['assignee'],
      ascending: true,
    });
    expect(source({ queue: '2', updated_since: '2030-01-01' })).toEqual({
      source: { dimension: 'queue', values: ['2'] },
      residual: ['updatedSince'],
      ascending: true,
    });
    expect(source({ created_since: '2030-01-01', updated_since: '2030-01-01' })).toEqual({
      source: { dimension: 'created', since: '2030-01-01T00:00:00.000000Z' },
      residual: ['updatedSince'],
      ascending: true,
    });
  });

  it(
    'id order with only time filters (besides status): every priority partition merged, the filters checked on ' +
      'the tickets read',
    () => {
      const all = ['1', '2', '3', '4', '5'];
      expect(source({ status: '1', created_since: '2030-01-01', ordering: 'id' })).toEqual({
        source: { dimension: 'priority', values: all },
        residual: ['createdSince', 'statuses'],
        ascending: true,
      });
      expect(source({ updated_since: '2030-01-01', ordering: '-id' })).toEqual({
        source: { dimension: 'priority', values: all },
        residual: ['updatedSince'],
        ascending: false,
      });
      expect(
        source({ status: '1,2', created_since: '2030-01-01', updated_since: '2030-01-01', ordering: '-id' }),
      ).toEqual({
        source: { dimension: 'priority', values: all },
        residual: ['createdSince', 'statuses', 'updatedSince'],
        ascending: false,
      });
      expect(countSourceOf(parseTicketListQuery({ created_since: '2030-01-01', ordering: 'id' }))).toBeUndefined();
    },
  );

  it('every ordering combines with every filter: no combination answers 400', () => {
    for (const filter of [
      'status',
      'queue',
      'assigned_to',
      'submitter_email',
      'priority',
      'created_since',
      'updated_since',
    ]) {
      for (const ordering of ORDERINGS)
        expect(() =>
          parseTicketListQuery({
            [filter]: filter === 'submitter_email' ? 'a@b.c' : filter.endsWith('_since') ? '2030-01-01' : '1',
            ordering,
          }),
        ).not.toThrow();
    }
  });

  it(
    'the count comes from the filters alone, in every ordering: the agent views from their count items, one ' +
      'status, queue, assignee or priority from the totals',
    () => {
      const count = (query: Record<string, string>) => countSourceOf(parseTicketListQuery(query));
      for (const ordering of [undefined, ...ORDERINGS]) {
        const ordered: Record<string, string> = ordering ? { ordering } : {};
        expect(count({ ...ordered })).toEqual({ totals: 'all' });
        expect(count({ status: '2,1', ...ordered })).toEqual({ totals: ['s1', 's2'] });
        expect(count({ queue: '3', ...ordered })).toEqual({ totals: ['q3'] });
        expect(count({ assigned_to: 'none', ...ordered })).toEqual({ totals: ['anone'] });
        expect(count({ priority: '2', ...ordered })).toEqual({ totals: ['p2'] });
        expect(count({ status: '1,2', queue: '3', ...ordered })).toEqual({
          view: { view: 'sq', queue: '3' },
          statuses: new Set([1, 2]),
        });
        expect(count({ status: '1', assigned_to: 'none', ...ordered })).toEqual({
          view: { view: 'sa', assignee: 'none' },
          statuses: new Set([1]),
        });
        expect(count({ status: '1', queue: '3', assigned_to: '4', ...ordered })).toEqual({
          view: { view: 'sqa', queue: '3', assignee: '4' },
          statuses: new Set([1]),
        });
        // A queue and an assignee without a status: the status × queue × assignee item, every status.
        expect(count({ queue: '3', assigned_to: '4', ...ordered })).toEqual({
          view: { view: 'sqa', queue: '3', assignee: '4' },
        });
      }
    },
  );

  it('no count (null) for a submitter, a time filter, or a priority with another filter', () => {
    const count = (query: Record<string, string>) => countSourceOf(parseTicketListQuery(query));
    expect(count({ submitter_email: 'a@b.c' })).toBeUndefined();
    expect(count({ status: '1', queue: '3', created_since: '2030-01-01', ordering: 'created' })).toBeUndefined();
    expect(count({ updated_since: '2030-01-01' })).toBeUndefined();
    expect(count({ queue: '3', priority: '2' })).toBeUndefined();
    expect(count({ status: '1', priority: '2', ordering: 'due_date' })).toBeUndefined();
    expect(count({ assigned_to: '4', submitter_email: 'a@b.c', ordering: '-created' })).toBeUndefined();
  });

  it('bad values are field errors, all at once', () => {
    try {
      parseTicketListQuery({
        queue: '-1',
        priority: '0',
        updated_since: 'soon',
        ordering: 'title',
        status: 'nope',
        submitter_email: `${'a'.repeat(250)}@b.cd`,
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).fields).sort()).toEqual([
        'ordering',
        'priority',
        'queue',
        'status',
        'submitter_email',
        'updated_since',
      ]);
    }
  });
});

describe('the id floor of an id-ordered list with created_since', () => {
  const floorOf = (query: Record<string, string>) => {
    const parsed = parseTicketListQuery(query);
    return parsed.kind === 'listing' ? parsed.idFloor : undefined;
  };

  it('covers a request and the clocks: 16 minutes before the time asked for, to the millisecond, earlier', () => {
    expect(CREATION_SPAN_MS).toBe(16 * 60_000);
    expect(idFloorOf('2030-01-02T03:04:05.123456Z', 'id')).toEqual({ createdBefore: '2030-01-02T02:48:05.123000Z' });
    expect(idFloorOf('2030-01-01T00:10:00.000000Z', 'id')).toEqual({ createdBefore: '2029-12-31T23:54:00.000000Z' });
    // The earliest time a client may send: still a stored date-time (every created sorts after it).
    expect(idFloorOf('0001-01-01T00:00:00.000000Z', 'id')).toEqual({ createdBefore: '0000-12-31T23:44:00.000000Z' });
  });

  it(
    'every id-ordered list asking for created_since has one: each partition in id order, the submitter, the ' +
      'agent views, all priorities merged',
    () => {
      const floor = { createdBefore: '2030-01-01T23:44:00.000000Z' };
      const lists: Record<string, string>[] = [
        {},
        { status: '1' },
        { queue: '2' },
        { assigned_to: 'none' },
        { priority: '3' },
        { submitter_email: 'a@b.c' },
        { status: '1,3', queue: '2' },
        { status: '1', assigned_to: '7' },
        { status: '1', queue: '2', assigned_to: '7' },
        { updated_since: '2029-01-01' },
      ];
      for (const filters of lists) {
        for (const ordering of ['id', '-id'])
          expect(floorOf({ ...filters, created_since: '2030-01-02', ordering }), JSON.stringify(filters)).toEqual(
            floor,
          );
      }
    },
  );

  it(
    'no other list has one: without created_since, or in another order (a time ' + 'order reads from its own since)',
    () => {
      expect(floorOf({ updated_since: '2030-01-02', ordering: 'id' })).toBeUndefined();
      expect(floorOf({ queue: '2' })).toBeUndefined();
      for (const ordering of [
        'created',
        '-created',
        'modified',
        '-modified',
        'priority',
        '-priority',
        'due_date',
        '-due_date',
      ]) {
        expect(floorOf({ queue: '2', created_since: '2030-01-02', ordering }), ordering).toBeUndefined();
      }
      // Without an ordering, created_since alone is listed by created.
      expect(floorOf({ created_since: '2030-01-02' })).toBeUndefined();
      expect(parseTicketListQuery({ status: '1', ordering: '-id' })).toEqual({
        kind: 'ids',
        statuses: new Set([1]),
        ascending: false,
      });
    },
  );
});

describe('stillMatches', () => {
  const ticket = {
    id: 3,
    queue: 2,
    assigned_to: null,
    priority: 4,
    status: 1,
    submitter_email: 'a@b.c',
    created: '2030-01-01T00:00:00.000000Z',
    modified: '2030-02-01T00:00:00.000000Z',
  } as Ticket;
  it('checks the ticket as read against the filter its entry was found by', () => {
    expect(stillMatches(parseTicketListQuery({ queue: '2' }), ticket)).toBe(true);
    expect(stillMatches(parseTicketListQuery({ queue: '1' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ assigned_to: 'none' }), ticket)).toBe(true);
    expect(stillMatches(parseTicketListQuery({ priority: '3' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ submitter_email: 'x@b.c' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ updated_since: '2030-02-01' }), ticket)).toBe(true);
    expect(stillMatches(parseTicketListQuery({ created_since: '2030-01-02' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ status: '2' }), ticket)).toBe(false);
    expect(
      stillMatches(parseTicketListQuery({ status: '1', queue: '2', assigned_to: 'none', priority: '4' }), ticket),
    ).toBe(true);
    expect(
      stillMatches(parseTicketListQuery({ status: '1', queue: '2', assigned_to: 'none', priority: '3' }), ticket),
    ).toBe(false);
  });
});
