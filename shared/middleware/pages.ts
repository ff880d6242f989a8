/** Page-number pagination over HTTP: the request's page and the envelope of the answer. */
import { pageEnvelope, parsePageRequest, type PageRequest, type PageWindow } from '../domain/pagination';
import { baseUrl, json, queryPairs, queryParam, type HttpEvent, type HttpResult } from './http';

export function pageRequest(event: HttpEvent): PageRequest {
  return parsePageRequest({ page: queryParam(event, 'page'), page_size: queryParam(event, 'page_size') });
}

export function pageResponse(event: HttpEvent, window: PageWindow, count: number, results: unknown[]): HttpResult {
  return json(200, pageEnvelope(`${baseUrl(event)}${event.rawPath}`, queryPairs(event), window, count, results));
}
