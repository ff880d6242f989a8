/**
 * One call to an AWS service's JSON protocol (SQS, Secrets Manager), signed (SigV4) by the SDK's own
 * signer (sigv4.ts), which every bundle has for DynamoDB: the SDK's clients for these services would
 * add ~46 KiB to each function that sends a message or reads a secret, for one or two calls each.
 *
 * As the SDK's clients would, and through the DynamoDB client's request code (aws-request.ts):
 * credentials from the function's environment; the SDK's standard retry strategy with its default of
 * 3 attempts, deciding by the SDK's classification; clock-skew correction; the DynamoDB client's
 * sockets and timeouts (aws/clients.ts: 1 s to connect, then HELPDESK_DEPENDENCY_TIMEOUT_MS,
 * default 2 s, without a byte); a call that never got an answer throws a TimeoutError (or a
 * NetworkingError with the socket's code), and an error the service answers is thrown with the
 * error's name (`__type` without its namespace) and message.
 */
import { DEFAULT_MAX_ATTEMPTS, StandardRetryStrategy } from '@smithy/util-retry';
import { config } from '../config';
import { AwsService, serviceEndpoint, serviceFault, withRetries, type AwsReply } from './aws-request';
import { transport } from './clients';

/** The SDK clients' default, as SQS's and Secrets Manager's would have it. */
const AWS_JSON_ATTEMPTS = DEFAULT_MAX_ATTEMPTS;

/** An error the service answered, with its name and HTTP status (as the SDK's exceptions carry them). */
export class AwsServiceError extends Error {
  constructor(
    name: string,
    message: string,
    readonly $metadata: { httpStatusCode: number },
  ) {
    super(message);
    this.name = name;
  }
}

/**
 * The error of a REST JSON API's answer (SES v2, the RDS Data API), named as the SDK's protocol
 * names it: the X-Amzn-ErrorType header, else the body's `code`, else its `__type`, each without its
 * namespace or suffix; else the status.
 */
export function restJsonError(reply: AwsReply): AwsServiceError {
  const fault = serviceFault(reply.status, reply.text);
  const header = reply.headers['x-amzn-errortype'];
  const code = typeof fault.details.code === 'string' ? fault.details.code : undefined;
  const name = ((Array.isArray(header) ? header[0] : header) || code)?.split(':')[0]?.split('#').pop() || fault.name;
  return new AwsServiceError(name, `${name}${fault.message ? `: ${fault.message}` : ''}`, {
    httpStatusCode: reply.status,
  });
}

const serviceError = ({ status, text }: AwsReply) => {
  const fault = serviceFault(status, text);
  return new AwsServiceError(fault.name, `${fault.name}${fault.message ? `: ${fault.message}` : ''}`, {
    httpStatusCode: status,
  });
};

/** The services called this way: their endpoint prefix, JSON protocol version and client state. */
const SERVICES = {
  sqs: {
    target: 'AmazonSQS',
    contentType: 'application/x-amz-json-1.0',
    endpoint: () => config.aws.sqsEndpoint,
    client: new AwsService('sqs', 'sqs', serviceError),
  },
  secretsmanager: {
    target: 'secretsmanager',
    contentType: 'application/x-amz-json-1.1',
    endpoint: () => config.aws.secretsManagerEndpoint,
    client: new AwsService('secretsmanager', 'secrets_manager', serviceError),
  },
} as const;
export type AwsJsonService = keyof typeof SERVICES;

/** One retry strategy (one retry budget) per service and number of attempts, for the process. */
const strategies = new Map<string, StandardRetryStrategy>();
function strategyFor(service: AwsJsonService, attempts: number): StandardRetryStrategy {
  const key = `${service} ${attempts}`;
  let strategy = strategies.get(key);
  if (!strategy) strategies.set(key, (strategy = new StandardRetryStrategy({ maxAttempts: attempts })));
  return strategy;
}

export interface AwsJsonOptions {
  /** The service's region; the function's own by default. */
  region?: string | undefined;
  /** Attempts at most (AWS_JSON_ATTEMPTS by default). */
  attempts?: number;
  /**
   * Milliseconds each attempt may go without a byte once connected (HELPDESK_DEPENDENCY_TIMEOUT_MS, or 2 s, by
   * default).
   */
  timeoutMs?: number;
}

/** Calls `operation` (e.g. `SendMessage`) of `service` with `input`; the parsed answer. */
export async function awsJsonCall<T = Record<string, unknown>>(
  service: AwsJsonService,
  operation: string,
  input: object,
  options: AwsJsonOptions = {},
): Promise<T> {
  const { region = config.aws.region, attempts = AWS_JSON_ATTEMPTS, timeoutMs = transport.attemptMs } = options;
  const { target, contentType, endpoint, client } = SERVICES[service];
  // AWS_ENDPOINT_URL_SQS and AWS_ENDPOINT_URL_SECRETS_MANAGER replace the endpoint, as for the SDK.
  const url = serviceEndpoint(service, region, endpoint());
  const body = JSON.stringify(input);
  const invocationId = AwsService.invocationId();
  try {
    const text = await withRetries(strategyFor(service, attempts), (attempt) =>
      client.send(
        {
          url,
          region,
          contentType,
          target: `${target}.${operation}`,
          body,
          invocationId,
          attempt,
          maxAttempts: attempts,
        },
        { agents: transport.agents, attemptMs: timeoutMs },
      ),
    );
    return (text ? JSON.parse(text) : {}) as T;
  } catch (caught) {
    throw callFailure(`${service} ${operation}`, caught);
  }
}

/** A REST JSON call (SES v2, the RDS Data API): where it goes, its body, and how long an attempt may wait. */
export interface RestJsonPost {
  /** The call's name in errors (`ses SendEmail`). */
  call: string;
  url: URL;
  region: string;
  body: string;
  attemptMs: number;
}

/** POSTs `post` through `client` with the SDK's retries (`strategy`, its default attempts); the answer's text. */
export async function restJsonPost(
  client: AwsService,
  strategy: StandardRetryStrategy,
  { call, url, region, body, attemptMs }: RestJsonPost,
): Promise<string> {
  const invocationId = AwsService.invocationId();
  try {
    return await withRetries(strategy, (attempt) =>
      client.send(
        {
          url,
          region,
          contentType: 'application/json',
          body,
          invocationId,
          attempt,
          maxAttempts: DEFAULT_MAX_ATTEMPTS,
        },
        { agents: transport.agents, attemptMs },
      ),
    );
  } catch (caught) {
    throw callFailure(call, caught);
  }
}

/**
 * What a call that failed throws: the service's error with the call named in its message, or a
 * failure without an answer named as the SDK's HTTP handler names them (TimeoutError or
 * NetworkingError, with the socket's code), which the error middleware answers with a 503.
 */
export function callFailure(call: string, caught: unknown): Error {
  const error = caught as Error & { code?: string; $metadata?: { attempts?: number } };
  if (error instanceof AwsServiceError) {
    error.message = `${call} failed: ${error.message}`;
    return error;
  }
  return Object.assign(new Error(`${call} failed: ${error.message}`), {
    name: error.name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError',
    code: error.code,
    $metadata: error.$metadata,
    cause: error,
  });
}
