/**
 * The local runtime serves every function's invocations from one process, many at once. Lambda runs
 * a process per invocation at a time, unless the function runs on Lambda Managed Instances, where
 * one process takes several at once. There Powertools keeps each invocation's state apart: the
 * Logger's context (`function_name`, `function_request_id`), its keys and level, and the Metrics'
 * store. It does this when `AWS_LAMBDA_MAX_CONCURRENCY` is set, in the store that the Lambda
 * runtime opens for each invocation (@aws/lambda-invoke-store). The local runtime does the same.
 * Without it, a request's log record could name another request's function and request id: the last
 * one whose context was set (tests/integration/ops-runtime.test.ts).
 */
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';

/**
 * Invocations of one function at once locally: the engines share 2 cores with it, and DynamoDB Local
 * (one JVM) slows down for everyone with hundreds of calls on its wire (measured: docs/local.md).
 */
export const LOCAL_FUNCTION_CONCURRENCY = 16;

// The store first: Powertools refuses to run with the setting and no store. The process's first
// caller decides its kind, and the AWS SDK asks for one at its first request (for a trace id), so
// the runtime loads this module before it makes any (infra/local/runtime.ts imports it first).
const store = await InvokeStore.getInstanceAsync(true);
if (!('als' in store)) throw new Error('An AWS SDK call came before the local runtime scoped its invocations');
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= String(LOCAL_FUNCTION_CONCURRENCY);

/** Runs `invoke` as the invocation `requestId`, as the Lambda runtime does. */
export function asInvocation<T>(requestId: string, invoke: () => T): T {
  return store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId }, invoke);
}
