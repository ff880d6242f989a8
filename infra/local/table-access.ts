/**
 * IAM's table permissions, applied by the local runtime: every DynamoDB call made while a route's
 * handler runs must be allowed by that route's grants (routes.ts `table`), and every call of the
 * table stream consumer by STREAM_CONSUMER_GRANTS, or it fails with `AccessDeniedException` as it
 * would on AWS. So the tests, which reach every handler's calls,
 * fail on a grant the stack would be missing.
 *
 * HELPDESK_RECORD_TABLE_ACCESS=<file> records instead of refusing: one JSON line per permission a
 * call needs (handler, action, partition, index), to measure what a changed handler uses before its
 * grants are written (how the grants in routes.ts were found: the integration tests, recorded).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import type { Route } from '../../shared/api/routes';
import type { FilteredConsumer } from '../../shared/consumer/changes';
import { allows, grantsOf, tableRequests, type TableGrant } from '../../shared/api/table-access';
import { config, listingsTableOf } from '../../shared/config';
import { DynamoDBServiceError, type DynamoDB } from '../../shared/aws/dynamodb';

/** The function whose calls are being made: its name (in refusals and records) and its grants. */
interface Scope {
  handler: string;
  grants: readonly TableGrant[];
}

const inScope = new AsyncLocalStorage<Scope>();
/** Each route's scope, assembled once (the route records are module constants). */
const scopes = new WeakMap<Route, Scope>();
const scopeOfRoute = (route: Route) =>
  scopes.get(route) ??
  scopes
    .set(route, {
      handler: route.handler,
      grants: grantsOf(route, { oidc: config.authenticationClasses.includes('oidc') }),
    })
    .get(route)!;

/** The function whose DynamoDB calls are being made now, if any (a benchmark counts each function's calls by it). */
export function currentFunction(): string | undefined {
  return inScope.getStore()?.handler;
}

/** Runs `fn` as `route`'s function: its DynamoDB calls are checked against the route's grants. */
export function asRoute<T>(route: Route, fn: () => Promise<T>): Promise<T> {
  return inScope.run(scopeOfRoute(route), fn);
}

/** Runs `fn` as a function that is not a route's (the table stream consumer), held to `grants`. */
export function asFunction<T>(handler: string, grants: readonly TableGrant[], fn: () => Promise<T>): Promise<T> {
  return inScope.run({ handler, grants }, fn);
}

/** A stream consumer whose every batch runs as `handler`'s function, held to `grants`. */
export function consumerAs(
  handler: string,
  grants: readonly TableGrant[],
  consumer: FilteredConsumer,
): FilteredConsumer {
  return { ...consumer, apply: (changes) => asFunction(handler, grants, () => consumer.apply(changes)) };
}

/**
 * Runs `fn` as no function: the benchmark's own reads around a call it measures (bench/billed-units.ts), and the
 * local stand-in of a service's own state (the mail queue's: infra/local/mail.ts), which no function makes.
 */
export function asNoFunction<T>(fn: () => Promise<T>): Promise<T> {
  return inScope.exit(fn);
}

export function enforceTableGrants(client: DynamoDB): void {
  const record = process.env.HELPDESK_RECORD_TABLE_ACCESS;
  client.intercept((call, next) => {
    const scope = inScope.getStore();
    if (scope) {
      for (const request of tableRequests(call.operation, call.input, listingsTableOf(config.tableName))) {
        if (record) appendFileSync(record, `${JSON.stringify({ handler: scope.handler, ...request })}\n`);
        else if (!allows(scope.grants, request)) {
          const on =
            (request.listings ? 'the listings table, ' : '') +
            (request.index ? `index ${request.index}` : `partition ${request.partition}`);
          throw new DynamoDBServiceError(
            'AccessDeniedException',
            `${scope.handler} is not authorized to perform dynamodb:${request.action} on ${on} ` +
              '(its grants: routes.ts, table-access.ts)',
            { httpStatusCode: 400 },
          );
        }
      }
    }
    return next();
  });
}
