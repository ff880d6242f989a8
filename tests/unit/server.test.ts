import type { IncomingMessage } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { fallbackRoute, routeByHandler } from '../../shared/api/routes';
import {
  accessLine,
  functionConcurrency,
  resolveRoute,
  FUNCTION_FAILED,
  toEvent,
  withFunctionTimeout,
  withinPayloadLimit,
} from '../../infra/local/server';
import { LAMBDA_RESPONSE_LIMIT_BYTES, bytesOver } from '../../shared/middleware/http';

describe('resolveRoute', () => {
  it('finds the route of a method and path, with or without slash', () => {
    expect(resolveRoute('GET', '/api/tickets/')).toEqual({ route: routeByHandler('tickets/list'), params: {} });
    expect(resolveRoute('POST', '/api/tickets')).toEqual({ route: routeByHandler('tickets/create'), params: {} });
    expect(resolveRoute('PATCH', '/api/tickets/4/')).toEqual({
      route: routeByHandler('tickets/update'),
      params: { id: '4' },
    });
  });

  it('sends HEAD to GET', () => {
    expect(resolveRoute('HEAD', '/api/tickets/4').route).toBe(routeByHandler('tickets/get'));
  });

  it('sends everything else to the fallback', () => {
    expect(resolveRoute('DELETE', '/api/tickets/')).toEqual({ route: fallbackRoute, params: { proxy: 'tickets/' } });
    expect(resolveRoute('OPTIONS', '/api/users')).toEqual({ route: fallbackRoute, params: { proxy: 'users' } });
    expect(resolveRoute('POST', '/api/')).toEqual({ route: fallbackRoute, params: { proxy: '' } });
    expect(resolveRoute('GET', '/api/nothing/here')).toEqual({
      route: fallbackRoute,
      params: { proxy: 'nothing/here' },
    });
  });
});

function request(method: string, url: string, headers: Record<string, string | string[]>): IncomingMessage {
  return {
    method,
    url,
    headers,
    httpVersion: '1.1',
    socket: { remoteAddress: '10.0.0.9' },
  } as unknown as IncomingMessage;
}

describe('toEvent', () => {
  it('builds a payload 2.0 event for a JSON request', () => {
    const { route, params } = resolveRoute('PATCH', '/api/tickets/4/');
    const req = request('patch', '/api/tickets/4/?a=1&b=x%20y&a=2', {
      host: 'localhost:3000',
      'content-type': 'application/json',
      authorization: 'Basic abc',
      cookie: 'c1=1; c2=2',
      'x-multi': ['p', 'q'],
    });
    const event = toEvent(req, Buffer.from('{"priority":1}'), route, params);
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'PATCH /api/tickets/{id}',
      rawPath: '/api/tickets/4/',
      rawQueryString: 'a=1&b=x%20y&a=2',
      cookies: ['c1=1', 'c2=2'],
      queryStringParameters: { a: '1,2', b: 'x y' },
      pathParameters: { id: '4' },
      body: '{"priority":1}',
      isBase64Encoded: false,
    });
    expect(event.headers).toMatchObject({
      host: 'localhost:3000',
      'content-type': 'application/json',
      authorization: 'Basic abc',
      'x-multi': 'p,q',
      'x-forwarded-proto': 'http',
      'x-forwarded-for': '10.0.0.9',
    });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.requestContext).toMatchObject({
      domainName: 'localhost:3000',
      routeKey: 'PATCH /api/tickets/{id}',
      stage: '$default',
      http: { method: 'PATCH', path: '/api/tickets/4/', sourceIp: '10.0.0.9' },
    });
  });

  it('base64-encodes binary bodies and omits empty parts', () => {
    const { route, params } = resolveRoute('POST', '/api/tickets');
    const bytes = Buffer.from([0, 1, 2, 255]);
    const event = toEvent(
      request('POST', '/api/tickets', { 'content-type': 'multipart/form-data; boundary=x' }),
      bytes,
      route,
      params,
    );
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64').equals(bytes)).toBe(true);
    expect(event.queryStringParameters).toBeUndefined();
    expect(event.pathParameters).toBeUndefined();
    expect(event.cookies).toBeUndefined();
  });

  it('an empty body is undefined and not base64', () => {
    const { route, params } = resolveRoute('GET', '/api/nothing');
    const event = toEvent(request('GET', '/api/nothing', {}), Buffer.alloc(0), route, params);
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
    expect(event.routeKey).toBe('ANY /api/{proxy+}');
    expect(event.pathParameters).toEqual({ proxy: 'nothing' });
  });
});

describe('accessLine', () => {
  it("is npm start's one line per request: method, path and query, status, whole milliseconds, request id", () => {
    expect(accessLine('GET', '/api/tickets/?page=2', 200, 12.6, 'a1b2')).toBe(
      'GET /api/tickets/?page=2 200 13 ms a1b2',
    );
    expect(accessLine('POST', '/api/tickets/', 413, 3, undefined)).toBe('POST /api/tickets/ 413 3 ms -');
  });
});

describe('withFunctionTimeout', () => {
  const ANSWERS_AS_HTTP_API =
    "answers as the HTTP API does once a function runs past its timeout, and the function's own answer before it";
  it(ANSWERS_AS_HTTP_API, async () => {
    vi.useFakeTimers();
    try {
      const never = new Promise<never>(() => undefined);
      const late = withFunctionTimeout(never, 15_000);
      await vi.advanceTimersByTimeAsync(14_999);
      const settled = await Promise.race([late.then(() => 'answered'), Promise.resolve('pending')]);
      expect(settled).toBe('pending');
      await vi.advanceTimersByTimeAsync(1);
      expect(await late).toEqual(FUNCTION_FAILED);
      expect(FUNCTION_FAILED).toMatchObject({ statusCode: 500, body: '{"message":"Internal Server Error"}' });
      const answer = { statusCode: 201, headers: {}, body: '{}' };
      expect(await withFunctionTimeout(Promise.resolve(answer), 15_000)).toBe(answer);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('functionConcurrency', () => {
  it(
    'runs at most `limit` invocations of one function at once, the others in turn, and other functions beside ' +
      'them',
    async () => {
      const bound = functionConcurrency(2);
      const running = { create: 0, get: 0 };
      const most = { create: 0, get: 0 };
      const gates: (() => void)[] = [];
      const invoke = (fn: 'create' | 'get') =>
        bound(fn, async () => {
          most[fn] = Math.max(most[fn], ++running[fn]);
          await new Promise<void>((open) => gates.push(open));
          running[fn]--;
          return fn;
        });
      const creates = Array.from({ length: 5 }, () => invoke('create'));
      const gets = [invoke('get'), invoke('get')];
      await expect.poll(() => gates.length).toBe(4);
      expect(running).toEqual({ create: 2, get: 2 });
      // Three creates wait for a slot (the stream's poller holds off meanwhile: table-stream.ts).
      expect(bound.waiting()).toBe(3);
      while (running.create + running.get) {
        gates.shift()!();
        await new Promise((settle) => setImmediate(settle));
      }
      expect(await Promise.all([...creates, ...gets])).toEqual([
        'create',
        'create',
        'create',
        'create',
        'create',
        'get',
        'get',
      ]);
      expect(most).toEqual({ create: 2, get: 2 });
      expect(bound.waiting()).toBe(0);
    },
  );
});

describe('withinPayloadLimit', () => {
  const answer = (body: string) => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body });
  const payload = (result: object) => Buffer.byteLength(JSON.stringify(result));

  it("fails an answer past Lambda's payload limit as the HTTP API does, and logs why; one at it is returned", () => {
    // Control characters are the worst case of JSON's escaping: 6 bytes each (\u0001), 7 in the payload around it.
    const under = answer(JSON.stringify('\u0001'.repeat(898_700)));
    const size = payload(under);
    expect(size).toBeLessThanOrEqual(LAMBDA_RESPONSE_LIMIT_BYTES);
    const over = answer(`${under.body}${' '.repeat(LAMBDA_RESPONSE_LIMIT_BYTES - size + 1)}`);
    expect(payload(over)).toBe(LAMBDA_RESPONSE_LIMIT_BYTES + 1);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(withinPayloadLimit(under, 'tickets/get')).toBe(under);
      expect(errors).not.toHaveBeenCalled();
      expect(withinPayloadLimit(over, 'tickets/get')).toBe(FUNCTION_FAILED);
      expect(JSON.parse(String(errors.mock.calls[0]![0]))).toEqual({
        level: 'ERROR',
        message:
          `Response payload size (${LAMBDA_RESPONSE_LIMIT_BYTES + 1} bytes) exceeded maximum allowed payload size ` +
          `(${LAMBDA_RESPONSE_LIMIT_BYTES} bytes).`,
        handler: 'tickets/get',
      });
    } finally {
      errors.mockRestore();
    }
  });

  it('measures an answer by its escaped bytes, not its characters', () => {
    const quotes = answer('"'.repeat(1_600_000)); // 1.6 M characters, 3.2 MB once escaped
    expect(bytesOver(quotes, 3_000_000)).toBe(payload(quotes));
    expect(bytesOver(quotes, payload(quotes))).toBeUndefined();
    const accents = answer('é'.repeat(1_600_000)); // 3.2 MB of UTF-8, none of it escaped
    expect(bytesOver(accents, 3_000_000)).toBe(payload(accents));
  });
});
