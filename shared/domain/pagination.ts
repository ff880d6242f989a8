/**
 * Page-number pagination as upstream's (DRF's PageNumberPagination with `page_size` as a query
 * parameter): envelope `{count, next, previous, results}`, links sorted by parameter name, the link
 * to page 1 without `page`. Here `page_size` is capped at 100 so a page fits a Lambda response.
 */
import { HttpError, InvalidPage, NotFound } from './errors';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number | 'last';
  pageSize: number;
  /** Set by a `cursor` link (lists that have them): the page after or before a ticket id. */
  cursor?: PageCursor;
}

/**
 * Lists that can hold millions of rows (tickets) serve page numbers only while the page starts
 * within this many rows of either end, where finding the page costs a bounded read; past that their
 * `next`/`previous` links carry an opaque `cursor` (a position in id order), as large APIs do.
 */
export const MAX_PAGE_DEPTH = 10_000;

/**
 * A position in a list: after or before a ticket id (id order), or after or before a sort key of a
 * filtered list's index (a 12-digit id, or a stored date-time, a priority or `~` and id: store/listings.ts).
 */
export type IdCursor = { after: number } | { before: number };
export type KeyCursor = { afterKey: string } | { beforeKey: string };
export type PageCursor = IdCursor | KeyCursor;
export const isIdCursor = (cursor: PageCursor): cursor is IdCursor => 'after' in cursor || 'before' in cursor;

export function encodeCursor(cursor: PageCursor): string {
  const text =
    'after' in cursor
      ? `a${cursor.after}`
      : 'before' in cursor
        ? `b${cursor.before}`
        : 'afterKey' in cursor
          ? `A${cursor.afterKey}`
          : `B${cursor.beforeKey}`;
  return Buffer.from(text).toString('base64url');
}

const ID_CURSOR = /^([ab])(\d{1,15})$/;
// A sort key's value before the id: a stored date-time, a priority digit, or `~` (no due date).
const KEY_CURSOR = /^([AB])((?:(?:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z|\d|~)#)?\d{12})$/;

/** DRF's CursorPagination answers a cursor it did not make with 404 "Invalid cursor". */
export function decodeCursor(value: string): PageCursor {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(value) ? Buffer.from(value, 'base64url').toString('latin1') : '';
  const id = ID_CURSOR.exec(text);
  if (id) return id[1] === 'a' ? { after: Number(id[2]) } : { before: Number(id[2]) };
  const key = KEY_CURSOR.exec(text);
  if (key) return key[1] === 'A' ? { afterKey: key[2]! } : { beforeKey: key[2]! };
  throw new NotFound('Invalid cursor');
}

/** 400: a page number too far from both ends of a large list (see MAX_PAGE_DEPTH). */
export class PageTooDeep extends HttpError {
  constructor(page: number) {
    super(400, {
      detail:
        `Page ${page} is more than ${MAX_PAGE_DEPTH} items from both ends of the list: page numbers reach ` +
        `that far from the first ` +
        `or the last page. Follow ` +
        `the next and previous ` +
        `links, which carry a cursor ` +
        `past that depth.`,
    });
  }
}

export function parsePageRequest(query: Record<string, string | undefined>): PageRequest {
  const rawSize = query.page_size;
  let pageSize = DEFAULT_PAGE_SIZE;
  if (rawSize !== undefined && /^\s*\d+\s*$/.test(rawSize) && Number(rawSize) > 0) {
    pageSize = Math.min(Number(rawSize), MAX_PAGE_SIZE);
  }
  if (query.cursor !== undefined) return { page: 1, pageSize, cursor: decodeCursor(query.cursor) };
  const rawPage = query.page?.trim();
  if (rawPage === undefined || rawPage === '') return { page: 1, pageSize };
  if (rawPage === 'last') return { page: 'last', pageSize };
  if (!/^\d+$/.test(rawPage) || Number(rawPage) < 1) throw new InvalidPage();
  return { page: Number(rawPage), pageSize };
}

export interface PageWindow {
  page: number;
  pages: number;
  offset: number;
  limit: number;
}

/** Resolves a page request against the item count; a page past the end is 404 "Invalid page.". */
export function pageWindow(request: PageRequest, count: number): PageWindow {
  const pages = Math.max(1, Math.ceil(count / request.pageSize));
  const page = request.page === 'last' ? pages : request.page;
  if (page > pages) throw new InvalidPage();
  const offset = (page - 1) * request.pageSize;
  return { page, pages, offset, limit: Math.min(request.pageSize, Math.max(0, count - offset)) };
}

/** The page of `items` (a whole list, in its order) that `request` asks for, with its window. */
export function pageOf<T>(request: PageRequest, items: readonly T[]): { window: PageWindow; page: T[] } {
  const window = pageWindow(request, items.length);
  return { window, page: items.slice(window.offset, window.offset + window.limit) };
}

/** Python's urlencode(quote_plus) for a query string, parameters sorted by name. */
function encodeQuery(params: [string, string][]): string {
  const quote = (s: string) =>
    encodeURIComponent(s)
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+');
  return params.map(([k, v]) => `${quote(k)}=${quote(v)}`).join('&');
}

/** Where a `next`/`previous` link points: a page number (upstream's links) or a cursor. */
export type PageTarget = number | PageCursor;

export function pageLink(url: string, params: [string, string][], target: PageTarget): string {
  const kept = params.filter(([k]) => k !== 'page' && k !== 'cursor');
  if (typeof target !== 'number') kept.push(['cursor', encodeCursor(target)]);
  else if (target > 1) kept.push(['page', String(target)]);
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return kept.length ? `${url}?${encodeQuery(kept)}` : url;
}

/** The neighbours of a page by number (upstream's links). */
export function numberedLinks(window: PageWindow): PageLinks {
  return {
    next: window.page < window.pages ? window.page + 1 : null,
    previous: window.page > 1 ? window.page - 1 : null,
  };
}

export interface PageLinks {
  next: PageTarget | null;
  previous: PageTarget | null;
}

/** `count` is null for a list that does not keep one (a filtered ticket list). */
export function pageEnvelope<T>(
  url: string,
  params: [string, string][],
  links: PageLinks,
  count: number | null,
  results: T[],
) {
  return {
    count,
    next: links.next === null ? null : pageLink(url, params, links.next),
    previous: links.previous === null ? null : pageLink(url, params, links.previous),
    results,
  };
}
