/**
 * Lambda `Invoke` (the one Lambda call: the mail problems' release route runs the mail release function,
 * shared/mail-in/problems.ts): a REST POST through the store's own AWS request code (aws-request.ts), as ses.ts does
 * for SES, with its signing, sockets and headers. One attempt only: a synchronous invocation is not repeated by Lambda
 * either, and the function it runs must not run twice for one request. Locally AWS_ENDPOINT_URL_LAMBDA points at the
 * local runtime's endpoint (infra/local/lambda.ts), which runs the same handler.
 */
import { StandardRetryStrategy } from '@smithy/util-retry';
import { config } from '../config';
import { restJsonError, restJsonPost } from './aws-json';
import { AwsService, serviceEndpoint } from './aws-request';

const lambda = new AwsService('lambda', 'lambda', restJsonError);
/** One attempt: see above. */
const once = new StandardRetryStrategy({ maxAttempts: 1 });

/** The function threw (Lambda answers 200 with its `errorType` and `errorMessage`). */
export class FunctionError extends Error {
  override name = 'FunctionError';
}

/**
 * Runs `functionName` with `payload` and waits for its answer (RequestResponse), at most `waitMs` without a byte;
 * its JSON result. Throws FunctionError when the function threw, a TimeoutError when it answered too late (it may
 * still be running), and the service's error otherwise.
 */
export async function invokeFunction<T>(functionName: string, payload: unknown, waitMs: number): Promise<T> {
  const region = config.aws.region;
  const endpoint = serviceEndpoint('lambda', region, config.lambdaEndpoint);
  const url = new URL(`2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`, endpoint);
  const body = JSON.stringify(payload);
  const text = await restJsonPost(lambda, once, { call: 'lambda Invoke', url, region, body, attemptMs: waitMs });
  const answer = JSON.parse(text || 'null') as T | { errorType?: string; errorMessage?: string } | null;
  if (answer && typeof answer === 'object' && 'errorMessage' in answer && 'errorType' in answer)
    throw new FunctionError(`${functionName}: ${answer.errorType}: ${answer.errorMessage}`);
  return answer as T;
}
