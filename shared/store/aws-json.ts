/**
 * One call to an AWS service's JSON protocol (SQS, Secrets Manager), signed (SigV4) by the SDK's own
 * signer (sigv4.ts), which every bundle has for DynamoDB: the SDK's clients for these services would
 * add ~46 KiB to each function that sends a message or reads a secret, for one or two calls each.
 *
 * As the SDK's clients would: credentials from the function's environment, up to 3 attempts when
 * the service answers 5xx or 429 or the connection fails (with jittered backoff), each attempt given
 * HELPDESK_DEPENDENCY_TIMEOUT_MS (default 2 s, as store/clients.ts); a call that never got an answer
 * throws a TimeoutError (or a NetworkingError with the socket's code), and an error the service
 * answers is thrown with the error's name (`__type` without its namespace) and message.
 */
import { config } from '../config';
import { awsSigner } from './sigv4';

export const AWS_JSON_ATTEMPTS = 3;
const attemptMs = config.dependencyTimeoutMs ?? 2000;

/** The services called this way: their signing name, endpoint prefix and JSON protocol version. */
const SERVICES = {
  sqs: { target: 'AmazonSQS', contentType: 'application/x-amz-json-1.0', endpoint: () => config.aws.sqsEndpoint },
  secretsmanager: { target: 'secretsmanager', contentType: 'application/x-amz-json-1.1', endpoint: () => config.aws.secretsManagerEndpoint },
} as const;
export type AwsJsonService = keyof typeof SERVICES;

/** An error the service answered, with its name and HTTP status (as the SDK's exceptions carry them). */
export class AwsServiceError extends Error {
  constructor(name: string, message: string, readonly $metadata: { httpStatusCode: number }) {
    super(message);
    this.name = name;
  }
}

const retryable = (status: number) => status >= 500 || status === 429;

export interface AwsJsonOptions {
  /** The service's region; the function's own by default. */
  region?: string | undefined;
  /** Attempts at most (AWS_JSON_ATTEMPTS by default). */
  attempts?: number;
  /** Milliseconds each attempt may take (HELPDESK_DEPENDENCY_TIMEOUT_MS, or 2 s, by default). */
  timeoutMs?: number;
}

/** Calls `operation` (e.g. `SendMessage`) of `service` with `input`; the parsed answer. */
export async function awsJsonCall<T = Record<string, unknown>>(service: AwsJsonService, operation: string, input: object, options: AwsJsonOptions = {}): Promise<T> {
  const { region = config.aws.region, attempts = AWS_JSON_ATTEMPTS, timeoutMs = attemptMs } = options;
  const { target, contentType, endpoint } = SERVICES[service];
  // AWS_ENDPOINT_URL_SQS and AWS_ENDPOINT_URL_SECRETS_MANAGER replace the endpoint, as for the SDK.
  const url = new URL(endpoint() ?? `https://${service}.${region}.amazonaws.com/`);
  const body = JSON.stringify(input);
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      // Signed with the host, which fetch sends from the URL itself.
      const { host: _host, ...headers } = await signedJsonPost(service, region, url, contentType, `${target}.${operation}`, body);
      response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      if (attempt < attempts) {
        await backoff(attempt);
        continue;
      }
      // Named as the SDK's HTTP handler names them, which the error middleware answers with a 503.
      const timedOut = (error as Error).name === 'TimeoutError';
      throw Object.assign(new Error(`${service} ${operation} failed: ${(error as Error).message}`), {
        name: timedOut ? 'TimeoutError' : 'NetworkingError',
        code: ((error as Error).cause as { code?: string } | undefined)?.code,
        $metadata: { attempts: attempt },
        cause: error,
      });
    }
    const text = await response.text();
    if (response.ok) return (text ? JSON.parse(text) : {}) as T;
    if (retryable(response.status) && attempt < attempts) {
      await backoff(attempt);
      continue;
    }
    const fault = serviceFault(response.status, text);
    throw new AwsServiceError(fault.name, `${service} ${operation} failed: ${fault.name}${fault.message ? `: ${fault.message}` : ''}`, {
      httpStatusCode: response.status,
    });
  }
}

/**
 * The headers of a POST of `body` to a JSON protocol's `url`, signed: `target` is its X-Amz-Target
 * (none for a REST JSON API such as SES v2's, whose path names the operation).
 */
export async function signedJsonPost(service: string, region: string, url: URL, contentType: string, target: string | undefined, body: string): Promise<Record<string, string>> {
  const signed = await awsSigner(service, region).sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'content-type': contentType, ...(target ? { 'x-amz-target': target } : {}) },
    body,
  });
  return signed.headers;
}

/**
 * An error answer of a JSON protocol: its name (`__type` without its namespace, or the status when
 * the body is not the service's), its message, and the body's other fields.
 */
export function serviceFault(status: number, text: string): { name: string; message: string | undefined; details: Record<string, unknown> } {
  let fields: Record<string, unknown> = {};
  try {
    fields = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's page): the status names it
  }
  const { __type, message, Message, ...details } = fields as { __type?: string; message?: string; Message?: string };
  return { name: __type?.split('#').pop() || `HTTP${status}`, message: message ?? Message, details };
}

/** Full jitter, as the SDK's standard retry strategy: up to `base` ms before the 2nd attempt, twice that before the 3rd ... */
export function backoffMs(attempt: number, base = 100): number {
  return Math.floor(Math.min(20_000, Math.random() * base * 2 ** (attempt - 1)));
}

function backoff(attempt: number): Promise<void> {
  return new Promise((done) => setTimeout(done, backoffMs(attempt)));
}
