/**
 * Lambda `Invoke` (the one Lambda call: the mail problems' release route runs the mail release function,
 * shared/mail-in/problems.ts): a REST POST through the store's own AWS request code (aws-request.ts), as ses.ts does
 * for SES, with its signing, sockets and headers. One attempt only: a synchronous invocation is not repeated by Lambda
 * either, and the function it runs must not run twice for one request. Locally AWS_ENDPOINT_URL_LAMBDA points at the
 * local runtime's endpoint (infra/local/lambda.ts), which runs the same handler.
 */
import { config } from '../config';
import { AwsServiceError } from './aws-json';
import { AwsService, serviceEndpoint, serviceFault, type AwsReply } from './aws-request';
import { transport } from './clients';

const lambdaError = ({ status, text, headers }: AwsReply) => {
  const fault = serviceFault(status, text);
  const header = headers['x-amzn-errortype'];
  const name = (Array.isArray(header) ? header[0] : header)?.split(':')[0] || fault.name;
  return new AwsServiceError(name, `lambda Invoke failed: ${name}${fault.message ? `: ${fault.message}` : ''}`, {
    httpStatusCode: status,
  });
};

const lambda = new AwsService('lambda', 'lambda', lambdaError);

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
  let text: string;
  try {
    text = await lambda.send(
      {
        url,
        region,
        contentType: 'application/json',
        body: JSON.stringify(payload),
        invocationId: AwsService.invocationId(),
        attempt: 1,
        maxAttempts: 1,
      },
      { agents: transport.agents, attemptMs: waitMs },
    );
  } catch (caught) {
    if (caught instanceof AwsServiceError) throw caught;
    const error = caught as Error & { code?: string };
    throw Object.assign(new Error(`lambda Invoke failed: ${error.message}`), {
      name: error.name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError',
      code: error.code,
      cause: error,
    });
  }
  const answer = JSON.parse(text || 'null') as T | { errorType?: string; errorMessage?: string } | null;
  if (answer && typeof answer === 'object' && 'errorMessage' in answer && 'errorType' in answer)
    throw new FunctionError(`${functionName}: ${answer.errorType}: ${answer.errorMessage}`);
  return answer as T;
}
