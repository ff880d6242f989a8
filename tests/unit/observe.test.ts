/**
 * The log line and the metrics of each request (shared/middleware/observe.ts), as Lambda's stdout
 * and stderr get them: Powertools writes one JSON line per record there.
 */
import middy from '@middy/core';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiEvent, HttpResult } from '../../shared/middleware/http';
import type { Json } from '../json';

// As on Lambda: compact JSON lines and metrics on (the local runtime sets POWERTOOLS_DEV=true).
process.env.POWERTOOLS_DEV = 'false';
process.env.HELPDESK_ENVIRONMENT = 'test';
delete process.env.POWERTOOLS_METRICS_DISABLED;
delete process.env.POWERTOOLS_LOG_LEVEL;

let apiHandler: typeof import('../../shared/middleware/index').apiHandler;
let errorResponse: typeof import('../../shared/middleware/index').errorResponse;
let observe: typeof import('../../shared/middleware/observe').observe;

beforeAll(async () => {
  ({ apiHandler, errorResponse } = await import('../../shared/middleware/index'));
  ({ observe } = await import('../../shared/middleware/observe'));
});

let written: string[] = [];
beforeEach(() => {
  written = [];
  process.env.HELPDESK_ACTIVATE_API_ENDPOINT = 'True';
  for (const stream of ['stdout', 'stderr'] as const) {
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Every line written, parsed: each must be one whole JSON object. */
function records(): Record<string, Json>[] {
  return written
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
const requestLines = () => records().filter((r) => r.message === 'request');
const emf = () => records().filter((r) => r._aws);

let counter = 0;
function event(method: string, path: string, routeKey: string, headers: Record<string, string> = {}): ApiEvent {
  counter++;
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: 'page=2&secret=query-value',
    headers,
    requestContext: {
      accountId: '1',
      apiId: 'api',
      domainName: 'example.com',
      domainPrefix: 'example',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'test' },
      requestId: `api-request-${counter}`,
      routeKey,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: '{"password":"body-secret"}',
    isBase64Encoded: false,
  };
}
const context = (id: string) => ({
  awsRequestId: id,
  functionName: 'helpdesk-api-root',
  memoryLimitInMB: '512',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:helpdesk-api-root',
});

describe('one log line per request', () => {
  it(
    'carries the request id, route, status, latency and cold-start flag, and ' + 'no credentials, query or body',
    async () => {
      const handler = apiHandler('api/root', () => ({ statusCode: 200, body: '{}' }));
      const secret = 'Basic not-base64-password-secret';
      const first = await handler(
        event('GET', '/api/', 'GET /api', { authorization: secret }),
        context('lambda-1') as never,
      );
      expect(first.statusCode).toBe(401);
      await handler(event('GET', '/api/', 'GET /api'), context('lambda-2') as never);

      const lines = requestLines();
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({
        level: 'INFO',
        message: 'request',
        service: 'helpdesk',
        operation: 'api/root',
        request_id: expect.stringMatching(/^api-request-\d+$/),
        function_request_id: 'lambda-1',
        route: 'GET /api',
        method: 'GET',
        path: '/api/',
        status: 401,
        latency_ms: expect.any(Number),
        cold_start: true,
      });
      expect(lines[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(lines[1]).toMatchObject({ function_request_id: 'lambda-2', status: 401, cold_start: false });
      const all = written.join('');
      for (const leaked of [
        'not-base64-password-secret',
        'body-secret',
        'query-value',
        'authorization',
        'Authorization',
      ]) {
        expect(all).not.toContain(leaked);
      }
    },
  );

  it('logs the 404 of a switched-off API too', async () => {
    process.env.HELPDESK_ACTIVATE_API_ENDPOINT = 'False';
    const handler = apiHandler('tickets/list', () => ({ statusCode: 200 }));
    const response = await handler(event('GET', '/api/tickets/', 'GET /api/tickets'), context('lambda-3') as never);
    expect(response.statusCode).toBe(404);
    expect(requestLines()).toEqual([
      expect.objectContaining({ operation: 'tickets/list', route: 'GET /api/tickets', status: 404 }),
    ]);
  });

  it('emits the operation metrics as one EMF record per request', async () => {
    const handler = apiHandler('tickets/get', () => ({ statusCode: 200 }));
    await handler(event('GET', '/api/tickets/1', 'GET /api/tickets/{id}'), context('lambda-4') as never);
    const operation = emf().filter((r) => 'Requests' in r);
    expect(operation).toHaveLength(1);
    const record = operation[0]!;
    expect(record._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'Helpdesk',
        Dimensions: [expect.arrayContaining(['service', 'environment', 'operation'])],
        Metrics: expect.arrayContaining([
          { Name: 'Requests', Unit: 'Count' },
          { Name: 'ServerErrors', Unit: 'Count' },
          { Name: 'ClientErrors', Unit: 'Count' },
          { Name: 'Latency', Unit: 'Milliseconds' },
        ]),
      },
    ]);
    expect(record).toMatchObject({
      service: 'helpdesk',
      environment: 'test',
      operation: 'tickets/get',
      Requests: 1,
      ServerErrors: 0,
      ClientErrors: 1,
    });
    expect(record.Latency).toBeGreaterThanOrEqual(0);
  });

  it('logs an unexpected error once through the logger, with its stack, and the request line as ERROR', async () => {
    const handler = middy<ApiEvent, HttpResult>()
      .use(observe('tickets/update'))
      .use({ onError: (request) => void (request.response = errorResponse(request.error)) })
      .handler(() => {
        throw new TypeError('boom');
      });
    const response = await handler(event('PATCH', '/api/tickets/3', 'PATCH /api/tickets/{id}'), context('lambda-5'));
    expect(response).toMatchObject({ statusCode: 500, body: '{"detail":"A server error occurred."}' });

    const errors = records().filter((r) => r.message === 'unhandled error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      level: 'ERROR',
      function_request_id: 'lambda-5',
      error: { name: 'TypeError', message: 'boom', stack: expect.stringContaining('TypeError: boom') },
    });
    expect(requestLines()).toEqual([
      expect.objectContaining({ level: 'ERROR', status: 500, operation: 'tickets/update' }),
    ]);
    expect(emf().find((r) => 'Requests' in r)).toMatchObject({ ServerErrors: 1, ClientErrors: 0 });
  });
});
