/**
 * IAM's table permissions, applied by the local runtime: every DynamoDB call made while a route's
 * handler runs must be allowed by that route's grants (routes.ts `table`), or it fails with
 * `AccessDeniedException` as it would on AWS. So the tests, which reach every handler's calls,
 * fail on a grant the stack would be missing.
 *
 * HELPDESK_RECORD_TABLE_ACCESS=<file> records instead of refusing: one JSON line per permission a
 * call needs (handler, action, partition, index), to measure what a changed handler uses before its
 * grants are written (how the grants in routes.ts were found: the integration tests, recorded).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import type { Route } from '../../shared/api/routes';
import { allows, grantsOf, tableRequests } from '../../shared/api/table-access';

const routeInScope = new AsyncLocalStorage<Route>();
/** Each route's grants, assembled once (the route records are module constants). */
const grants = new WeakMap<Route, ReturnType<typeof grantsOf>>();
const grantsOfRoute = (route: Route) => grants.get(route) ?? grants.set(route, grantsOf(route)).get(route)!;

/** Runs `fn` as `route`'s function: its DynamoDB calls are checked against the route's grants. */
export function asRoute<T>(route: Route, fn: () => Promise<T>): Promise<T> {
  return routeInScope.run(route, fn);
}

export function enforceTableGrants(client: DynamoDBDocumentClient): void {
  const record = process.env.HELPDESK_RECORD_TABLE_ACCESS;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const route = routeInScope.getStore();
      if (route) {
        for (const request of tableRequests(context.commandName ?? '', args.input as Record<string, unknown>)) {
          if (record) appendFileSync(record, `${JSON.stringify({ handler: route.handler, ...request })}\n`);
          else if (!allows(grantsOfRoute(route), request)) {
            const on = request.index ? `index ${request.index}` : `partition ${request.partition}`;
            throw new DynamoDBServiceException({
              name: 'AccessDeniedException',
              $fault: 'client',
              $metadata: { httpStatusCode: 400 },
              message: `${route.handler} is not authorized to perform dynamodb:${request.action} on ${on} (routes.ts grants)`,
            });
          }
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'enforceTableGrants' },
  );
}
