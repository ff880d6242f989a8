import { describe, expect, it } from 'vitest';
import { allowedMethods, fallbackRoute, matchPath, matchRoutes, routeByHandler, routes } from '../../shared/api/routes';

describe('matchPath', () => {
  it('matches with and without the trailing slash', () => {
    expect(matchPath('/api/tickets', '/api/tickets')).toEqual({});
    expect(matchPath('/api/tickets', '/api/tickets/')).toEqual({});
    expect(matchPath('/api/tickets/{id}', '/api/tickets/12')).toEqual({ id: '12' });
    expect(matchPath('/api/tickets/{id}', '/api/tickets/12/')).toEqual({ id: '12' });
  });

  it('extracts several parameters', () => {
    expect(matchPath('/api/tickets/{id}/attachments/{attachmentId}', '/api/tickets/3/attachments/9/')).toEqual({
      id: '3',
      attachmentId: '9',
    });
  });

  it('does not match other paths', () => {
    expect(matchPath('/api/tickets', '/api/tickets//')).toBeUndefined();
    expect(matchPath('/api/tickets', '/api/ticketsx')).toBeUndefined();
    expect(matchPath('/api/tickets', '/xapi/tickets')).toBeUndefined();
    expect(matchPath('/api/tickets/{id}', '/api/tickets/')).toBeUndefined();
    expect(matchPath('/api/tickets/{id}', '/api/tickets/1/2')).toBeUndefined();
    expect(matchPath('/api/followups', '/api/followups-attachments')).toBeUndefined();
  });

  it('leaves id validation to the handler', () => {
    expect(matchPath('/api/tickets/{id}', '/api/tickets/abc')).toEqual({ id: 'abc' });
  });
});

describe('matchRoutes', () => {
  it('returns every route of the path', () => {
    const list = matchRoutes('/api/tickets/')!;
    expect(list.path).toBe('/api/tickets');
    expect(list.params).toEqual({});
    expect(list.routes.map((r) => r.method).sort()).toEqual(['GET', 'POST']);

    const detail = matchRoutes('/api/tickets/7')!;
    expect(detail.path).toBe('/api/tickets/{id}');
    expect(detail.params).toEqual({ id: '7' });
    expect(detail.routes.map((r) => r.method).sort()).toEqual(['DELETE', 'GET', 'PATCH', 'PUT']);
  });

  it('matches users and followups', () => {
    expect(matchRoutes('/api/users')!.routes.map((r) => r.method)).toEqual(['POST', 'GET']);
    // The literal `me` before `{id}`, as API Gateway prefers it.
    expect(matchRoutes('/api/users/me/')!.path).toBe('/api/users/me');
    expect(matchRoutes('/api/users/7/')!.routes.map((r) => r.method)).toEqual(['GET', 'PATCH']);
    expect(matchRoutes('/api/followups/')!.path).toBe('/api/followups');
  });

  it('is undefined for unknown paths', () => {
    expect(matchRoutes('/api/nothing/')).toBeUndefined();
    expect(matchRoutes('/api/users/1/2/')).toBeUndefined();
    expect(matchRoutes('/')).toBeUndefined();
  });
});

describe('allowedMethods', () => {
  it('lists methods in upstream order, HEAD with GET, always OPTIONS', () => {
    expect(allowedMethods('/api/tickets')).toEqual(['GET', 'POST', 'HEAD', 'OPTIONS']);
    expect(allowedMethods('/api/tickets/{id}')).toEqual(['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
    expect(allowedMethods('/api/users')).toEqual(['GET', 'POST', 'HEAD', 'OPTIONS']);
  });
});

describe('route table', () => {
  it('has one handler per route and finds them', () => {
    const handlers = routes.map((r) => r.handler);
    expect(new Set(handlers).size).toBe(handlers.length);
    expect(routeByHandler('tickets/create')).toMatchObject({
      method: 'POST',
      path: '/api/tickets',
      permission: 'staff',
    });
    expect(routeByHandler('api/fallback')).toBe(fallbackRoute);
    expect(() => routeByHandler('nope')).toThrow();
  });

  it('every path is written without a trailing slash', () => {
    for (const r of routes) expect(r.path.endsWith('/')).toBe(false);
  });
});
