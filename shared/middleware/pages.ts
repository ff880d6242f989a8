/** Paginated lists over HTTP: the request's page and the envelope of the answer. */
import {
  numberedLinks,
  pageEnvelope,
  pageOf,
  parsePageRequest,
  type PageLinks,
  type PageRequest,
  type PageWindow,
} from '../domain/pagination';
import { baseUrl, json, queryPairs, queryParam, type HttpEvent, type HttpResult } from './http';

/** `cursors`: the list also takes the `cursor` of its links (only the ticket list has them). */
export function pageRequest(event: HttpEvent, options: { cursors?: true } = {}): PageRequest {
  return parsePageRequest({
    page: queryParam(event, 'page'),
    page_size: queryParam(event, 'page_size'),
    ...(options.cursors ? { cursor: queryParam(event, 'cursor') } : {}),
  });
}

/** The envelope of a page: links by page number from its window, or the links a list worked out. */
export function pageResponse(
  event: HttpEvent,
  page: PageWindow | PageLinks,
  count: number | null,
  results: unknown[],
): HttpResult {
  const links = 'pages' in page ? numberedLinks(page) : page;
  return json(200, pageEnvelope(`${baseUrl(event)}${event.rawPath}`, queryPairs(event), links, count, results));
}

/** The answer with the requested page of a list read whole (queues, tokens, custom fields, a user's tickets). */
export function listPageResponse<T>(
  event: HttpEvent,
  request: PageRequest,
  items: readonly T[],
  view: (item: T) => unknown,
): HttpResult {
  const { window, page } = pageOf(request, items);
  return pageResponse(event, window, items.length, page.map(view));
}
