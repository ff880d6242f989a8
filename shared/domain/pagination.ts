/**
 * Page-number pagination as upstream's (DRF's PageNumberPagination with `page_size` as a query
 * parameter): envelope `{count, next, previous, results}`, links sorted by parameter name, the link
 * to page 1 without `page`. Here `page_size` is capped at 100 so a page fits a Lambda response.
 */
import { InvalidPage } from './errors';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  page: number | 'last';
  pageSize: number;
}

export function parsePageRequest(query: Record<string, string | undefined>): PageRequest {
  const rawSize = query.page_size;
  let pageSize = DEFAULT_PAGE_SIZE;
  if (rawSize !== undefined && /^\s*\d+\s*$/.test(rawSize) && Number(rawSize) > 0) {
    pageSize = Math.min(Number(rawSize), MAX_PAGE_SIZE);
  }
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

/** Python's urlencode(quote_plus) for a query string, parameters sorted by name. */
function encodeQuery(params: [string, string][]): string {
  const quote = (s: string) =>
    encodeURIComponent(s)
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+');
  return params.map(([k, v]) => `${quote(k)}=${quote(v)}`).join('&');
}

export function pageLink(url: string, params: [string, string][], page: number): string {
  const kept = params.filter(([k]) => k !== 'page');
  if (page > 1) kept.push(['page', String(page)]);
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return kept.length ? `${url}?${encodeQuery(kept)}` : url;
}

export function pageEnvelope<T>(
  url: string,
  params: [string, string][],
  window: PageWindow,
  count: number,
  results: T[],
) {
  return {
    count,
    next: window.page < window.pages ? pageLink(url, params, window.page + 1) : null,
    previous: window.page > 1 ? pageLink(url, params, window.page - 1) : null,
    results,
  };
}
