import { describe, expect, it } from 'vitest';
import { InvalidPage, NotFound } from '../../shared/domain/errors';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_DEPTH,
  MAX_PAGE_SIZE,
  PageTooDeep,
  decodeCursor,
  encodeCursor,
  numberedLinks,
  pageEnvelope,
  pageLink,
  pageOf,
  pageWindow,
  parsePageRequest,
} from '../../shared/domain/pagination';

const URL_ = 'http://HOST/api/tickets/';

describe('parsePageRequest: page_size', () => {
  it('defaults to 25', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(25);
    expect(parsePageRequest({})).toEqual({ page: 1, pageSize: 25 });
  });

  it('takes a positive integer', () => {
    expect(parsePageRequest({ page_size: '1' }).pageSize).toBe(1);
    expect(parsePageRequest({ page_size: '100' }).pageSize).toBe(100);
  });

  it('caps at 100', () => {
    expect(MAX_PAGE_SIZE).toBe(100);
    expect(parsePageRequest({ page_size: '101' }).pageSize).toBe(100);
    expect(parsePageRequest({ page_size: '1000000' }).pageSize).toBe(100);
  });

  it('silently ignores 0, negatives and non-integers', () => {
    for (const page_size of ['0', '-5', 'abc', '2.5', '', '1e2']) {
      expect(parsePageRequest({ page_size }).pageSize, page_size).toBe(25);
    }
  });
});

describe('parsePageRequest: page', () => {
  it('empty or absent means 1', () => {
    expect(parsePageRequest({ page: '' }).page).toBe(1);
    expect(parsePageRequest({}).page).toBe(1);
  });

  it('takes a number or "last"', () => {
    expect(parsePageRequest({ page: '3' }).page).toBe(3);
    expect(parsePageRequest({ page: 'last' }).page).toBe('last');
  });

  it('0, negatives and non-integers are "Invalid page."', () => {
    for (const page of ['0', '-1', 'abc', '1.5', 'first']) {
      expect(() => parsePageRequest({ page }), page).toThrow(InvalidPage);
    }
    const error = (() => {
      try {
        parsePageRequest({ page: 'x' });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(NotFound);
    expect((error as InvalidPage).status).toBe(404);
    expect((error as InvalidPage).body).toEqual({ detail: 'Invalid page.' });
  });
});

describe('pageWindow', () => {
  it('page 1 of an empty list is valid', () => {
    expect(pageWindow({ page: 1, pageSize: 25 }, 0)).toEqual({ page: 1, pages: 1, offset: 0, limit: 0 });
  });

  it('computes offsets and the last page', () => {
    expect(pageWindow({ page: 2, pageSize: 1 }, 3)).toEqual({ page: 2, pages: 3, offset: 1, limit: 1 });
    expect(pageWindow({ page: 'last', pageSize: 2 }, 5)).toEqual({ page: 3, pages: 3, offset: 4, limit: 1 });
    expect(pageWindow({ page: 'last', pageSize: 25 }, 0)).toEqual({ page: 1, pages: 1, offset: 0, limit: 0 });
  });

  it('a page past the end is "Invalid page."', () => {
    expect(() => pageWindow({ page: 4, pageSize: 1 }, 3)).toThrow(InvalidPage);
    expect(() => pageWindow({ page: 2, pageSize: 25 }, 0)).toThrow(InvalidPage);
  });
});

describe('pageOf', () => {
  it('slices the requested page out of a whole list, the last one short', () => {
    const items = ['a', 'b', 'c', 'd', 'e'];
    expect(pageOf({ page: 2, pageSize: 2 }, items)).toEqual({
      window: { page: 2, pages: 3, offset: 2, limit: 2 },
      page: ['c', 'd'],
    });
    expect(pageOf({ page: 'last', pageSize: 2 }, items).page).toEqual(['e']);
    expect(() => pageOf({ page: 4, pageSize: 2 }, items)).toThrow(InvalidPage);
  });
});

describe('links', () => {
  it('match the observed v1.8.0 links', () => {
    const params: [string, string][] = [
      ['page_size', '1'],
      ['page', '2'],
    ];
    const env = pageEnvelope(URL_, params, numberedLinks(pageWindow({ page: 2, pageSize: 1 }, 3)), 3, ['x']);
    expect(env).toEqual({
      count: 3,
      next: 'http://HOST/api/tickets/?page=3&page_size=1',
      previous: 'http://HOST/api/tickets/?page_size=1',
      results: ['x'],
    });
  });

  it('keep every parameter, sorted by name', () => {
    const params: [string, string][] = [
      ['page_size', '1'],
      ['format', 'json'],
    ];
    const env = pageEnvelope(URL_, params, numberedLinks(pageWindow({ page: 1, pageSize: 1 }, 3)), 3, []);
    expect(env.next).toBe('http://HOST/api/tickets/?format=json&page=2&page_size=1');
    expect(env.previous).toBeNull();
  });

  it('page 1 has no page parameter; no parameters means no "?"', () => {
    expect(pageLink(URL_, [['page', '2']], 1)).toBe(URL_);
    expect(pageLink(URL_, [], 2)).toBe(`${URL_}?page=2`);
  });

  it('encode as quote_plus does: spaces as +', () => {
    expect(
      pageLink(
        URL_,
        [
          ['q', 'a b&c=d/é'],
          ['z', "!'()*~_.-"],
        ],
        2,
      ),
    ).toBe(`${URL_}?page=2&q=a+b%26c%3Dd%2F%C3%A9&z=%21%27%28%29%2A~_.-`);
  });

  it('keep repeated parameters in their order', () => {
    expect(
      pageLink(
        URL_,
        [
          ['status', '1'],
          ['a', 'x'],
          ['status', '3'],
        ],
        2,
      ),
    ).toBe(`${URL_}?a=x&page=2&status=1&status=3`);
  });

  it('an empty list has no links', () => {
    expect(pageEnvelope(URL_, [], numberedLinks(pageWindow({ page: 1, pageSize: 25 }, 0)), 0, [])).toEqual({
      count: 0,
      next: null,
      previous: null,
      results: [],
    });
  });
});

describe('cursors', () => {
  it('round-trip opaquely, and any other value is an invalid cursor (404, as DRF answers)', () => {
    for (const cursor of [{ after: 0 }, { after: 123456 }, { before: 7 }]) {
      const encoded = encodeCursor(cursor);
      expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(encoded)).toEqual(cursor);
    }
    for (const bad of [
      '',
      'a1',
      '!!!',
      Buffer.from('c5').toString('base64url'),
      Buffer.from('a-1').toString('base64url'),
      'x'.repeat(100),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(NotFound);
    }
  });

  it('a cursor link replaces the page number and keeps the other parameters, sorted', () => {
    const link = pageLink(
      URL_,
      [
        ['page', '3'],
        ['status', '1'],
        ['cursor', 'old'],
      ],
      { after: 42 },
    );
    expect(link).toBe(`${URL_}?cursor=${encodeCursor({ after: 42 })}&status=1`);
    expect(parsePageRequest({ page: '9', cursor: encodeCursor({ before: 5 }) })).toEqual({
      page: 1,
      pageSize: DEFAULT_PAGE_SIZE,
      cursor: { before: 5 },
    });
  });

  it('a page too deep says where to go instead', () => {
    const error = new PageTooDeep(500);
    expect(error.status).toBe(400);
    expect(error.body.detail).toContain(`${MAX_PAGE_DEPTH}`);
  });
});
