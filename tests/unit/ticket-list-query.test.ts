/** The ticket list's filters and ordering: which index a query asks for, and the 400s (domain/ticket-list-query.ts). */
import { describe, expect, it } from 'vitest';
import { ORDERINGS, ORDERINGS_OF, parseTicketListQuery, stillMatches, UnsupportedCombination } from '../../shared/domain/ticket-list-query';
import { ValidationError } from '../../shared/domain/errors';
import type { Ticket } from '../../shared/domain/records';

describe('parseTicketListQuery', () => {
  it('no parameter is upstream\'s list: id order, ascending', () => {
    expect(parseTicketListQuery({})).toEqual({ kind: 'ids', ascending: true });
    expect(parseTicketListQuery({ queue: ' ', ordering: '' })).toEqual({ kind: 'ids', ascending: true });
  });

  it('each filter names its index partition, with its default ordering', () => {
    expect(parseTicketListQuery({ status: '1,3', ordering: '-id' })).toEqual({ kind: 'ids', statuses: new Set([1, 3]), ascending: false });
    expect(parseTicketListQuery({ queue: '007' })).toEqual({ kind: 'listing', dimension: 'queue', value: '7', ascending: true });
    expect(parseTicketListQuery({ assigned_to: 'None' })).toEqual({ kind: 'listing', dimension: 'assigned', value: 'none', ascending: true });
    expect(parseTicketListQuery({ assigned_to: '12', ordering: '-id' })).toEqual({ kind: 'listing', dimension: 'assigned', value: '12', ascending: false });
    expect(parseTicketListQuery({ priority: '5' })).toEqual({ kind: 'listing', dimension: 'priority', value: '5', ascending: true });
    expect(parseTicketListQuery({ submitter_email: 'a@b.c' })).toEqual({ kind: 'submitter', email: 'a@b.c', ascending: true });
    expect(parseTicketListQuery({ updated_since: '2030-01-02T03:04:05+01:00' })).toEqual({ kind: 'listing', dimension: 'modified', since: '2030-01-02T02:04:05.000000Z', ascending: true });
    expect(parseTicketListQuery({ created_since: '2030-01-02', ordering: '-created' })).toEqual({ kind: 'listing', dimension: 'created', since: '2030-01-02T00:00:00.000000Z', ascending: false });
    expect(parseTicketListQuery({ ordering: '-modified' })).toEqual({ kind: 'listing', dimension: 'modified', ascending: false });
  });

  it('every ordering a filter combines with parses; any other is a 400 that says what combines', () => {
    for (const [filter, allowed] of Object.entries(ORDERINGS_OF)) {
      const query: Record<string, string> = filter === 'none' ? {} : { [filter]: filter.endsWith('since') ? '2030-01-01' : filter === 'submitter_email' ? 'a@b.c' : '1' };
      for (const ordering of ORDERINGS) {
        const parse = () => parseTicketListQuery({ ...query, ordering });
        if (allowed.includes(ordering)) expect(parse).not.toThrow();
        else expect(parse).toThrow(UnsupportedCombination);
      }
    }
  });

  it('two filters are a 400 naming both', () => {
    expect(() => parseTicketListQuery({ queue: '1', submitter_email: 'a@b.c' })).toThrow('The filters queue and submitter_email were given together');
    expect(() => parseTicketListQuery({ status: '1', created_since: '2030-01-01' })).toThrow('The filters status and created_since were given together');
  });

  it('bad values are field errors, all at once', () => {
    try {
      parseTicketListQuery({ queue: '-1', priority: '0', updated_since: 'soon', ordering: 'title', status: 'nope', submitter_email: `${'a'.repeat(250)}@b.cd` });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).fields).sort()).toEqual(['ordering', 'priority', 'queue', 'status', 'submitter_email', 'updated_since']);
    }
  });
});

describe('stillMatches', () => {
  const ticket = { id: 3, queue: 2, assigned_to: null, priority: 4, status: 1, submitter_email: 'a@b.c', created: '2030-01-01T00:00:00.000000Z', modified: '2030-02-01T00:00:00.000000Z' } as Ticket;
  it('checks the ticket as read against the filter its entry was found by', () => {
    expect(stillMatches(parseTicketListQuery({ queue: '2' }), ticket)).toBe(true);
    expect(stillMatches(parseTicketListQuery({ queue: '1' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ assigned_to: 'none' }), ticket)).toBe(true);
    expect(stillMatches(parseTicketListQuery({ priority: '3' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ submitter_email: 'x@b.c' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ updated_since: '2030-02-01' }), ticket)).toBe(true);
    expect(stillMatches(parseTicketListQuery({ created_since: '2030-01-02' }), ticket)).toBe(false);
    expect(stillMatches(parseTicketListQuery({ status: '2' }), ticket)).toBe(false);
  });
});
