/**
 * Fails a test whose calls got a response that the OpenAPI document does not describe (see
 * client.ts). A problem seen in a `beforeAll` is reported by the first test after it.
 */
import { afterAll, afterEach } from 'vitest';
import { contractFailures } from './client';

function report(): void {
  if (contractFailures.length === 0) return;
  const problems = contractFailures.splice(0);
  throw new Error(`Responses that do not match the OpenAPI document (${problems.length}):\n${problems.join('\n')}`);
}

afterEach(report);
afterAll(report);
