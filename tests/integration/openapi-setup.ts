/**
 * Checks every response of the integration suite against the OpenAPI document: every `fetch` of an
 * `/api` path (the client's `call`, and the tests that use fetch directly), whichever runtime serves
 * it, and the client's raw `rawRequest` (client.ts). Fails a test whose calls got a response that
 * the document does not describe; a problem seen in a `beforeAll` is reported by the first test
 * after it.
 */
import { afterAll, afterEach } from 'vitest';
import { checkResponse } from '../openapi-check';
import { contractFailures } from './client';

// Wrapped once per process: a worker may run several files one after another (vitest.config.ts).
const WRAPPED = Symbol.for('helpdesk.tests.checkedFetch');
const slot = globalThis as typeof globalThis & { [WRAPPED]?: true };
if (!slot[WRAPPED]) {
  slot[WRAPPED] = true;
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await realFetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!/^\/api(\/|$)/.test(new URL(url).pathname)) return response; // S3 downloads, webhook receivers
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    contractFailures.push(
      ...checkResponse({
        method,
        url,
        status: response.status,
        contentType: response.headers.get('content-type'),
        text,
        body,
      }),
    );
    return response;
  };
}

function report(): void {
  if (contractFailures.length === 0) return;
  const problems = contractFailures.splice(0);
  throw new Error(`Responses that do not match the OpenAPI document (${problems.length}):\n${problems.join('\n')}`);
}

afterEach(report);
afterAll(report);
