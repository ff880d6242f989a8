/**
 * The typed clients (issue 26): types and a client generated from the document this runtime serves
 * (openapi-typescript, @hey-api/openapi-ts), the examples compiled with --strict against them, and
 * run against the runtime (scripts/typed-clients.ts). The examples hold no casts, no `any` and no
 * type guards of their own: a document that types an answer or a body wrongly fails the compile or
 * the run here.
 */
import { describe, expect, it } from 'vitest';
import { compileTypedClients, generateTypedClients, runTypedClient, type ApiAccess } from '../../scripts/typed-clients';
import { API } from './client';
import { TEST_ADMIN } from './spawn-runtime';

const api: ApiAccess = { url: API, ...TEST_ADMIN };

describe('clients generated from the served OpenAPI document', () => {
  it(
    'generate, compile with --strict, and run the integration (openapi-typescript with openapi-fetch, then ' +
      'hey-api)',
    async () => {
      await generateTypedClients(api);
      compileTypedClients();
      expect(runTypedClient('client.ts', api)).toContain('typed client: all steps passed');
      expect(runTypedClient('hey-api-client.ts', api)).toContain('hey-api client: all steps passed');
    },
    400_000,
  );
});
