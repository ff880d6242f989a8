/**
 * A signed POST to an AWS service over node:http, and what the SDK's clients do around it, shared by
 * the DynamoDB client (dynamodb.ts) and the JSON-protocol calls to SQS and Secrets Manager
 * (aws-json.ts), none of which bundles an SDK client:
 *
 * - **Retries**: the SDK's own standard retry strategy (@smithy/util-retry: its delays, attempts and
 *   retry budget, a token bucket per client, so that a brownout is not multiplied by the attempts)
 *   deciding on the SDK's own classification of the error (@smithy/service-error-classification:
 *   throttling; timeouts, dropped connections, DNS and routing failures, 5xx, and the same found in
 *   an error's `cause`), combined as the SDK's retry middleware combines them (`retryErrorType`).
 *   tests/unit/aws-retries.test.ts holds both to the SDK's client on a table of errors.
 * - **Clock skew**: as the SDK's signer, each answer's `Date` sets the client's clock offset, every
 *   attempt is signed at the corrected time, and an error answered while the offset moved by
 *   4 minutes or more is marked `clockSkewCorrected`, which the classification retries.
 * - **Endpoints**: the regional endpoint in the aws, aws-cn and aws-us-gov partitions; FIPS,
 *   dual-stack and other partitions are refused with a message that names the way out (an explicit
 *   AWS_ENDPOINT_URL_<SERVICE>), rather than silently calling the standard endpoint.
 * - **Headers**: a User-Agent in the SDK's format, the SDK's invocation id and attempt count, and, in
 *   Lambda, the invocation's X-Ray trace header (`X-Amzn-Trace-Id`), as the SDK's recursion-detection
 *   step adds it.
 */
import { randomUUID } from 'node:crypto';
import http, { Agent as HttpAgent, type Agent, type IncomingHttpHeaders } from 'node:http';
import https, { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import { platform, release } from 'node:os';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/service-error-classification';
import type { StandardRetryStrategy } from '@smithy/util-retry';
import { config } from '../config';
import { signPost } from './sigv4';

// --- retries ------------------------------------------------------------------------------------

/** The SDK's retry strategy interface (@smithy/types' RetryStrategyV2), as its standard strategy has it. */
export type RetryStrategy = Pick<
  StandardRetryStrategy,
  'acquireInitialRetryToken' | 'refreshRetryTokenForRetry' | 'recordSuccess'
>;
type RetryErrorInfo = Parameters<RetryStrategy['refreshRetryTokenForRetry']>[1];
/** THROTTLING, TRANSIENT, SERVER_ERROR or CLIENT_ERROR. */
export type RetryErrorType = RetryErrorInfo['errorType'];
type SdkError = NonNullable<RetryErrorInfo['error']>;

/** What the SDK's retry middleware tells its strategy an error is (its own order of the checks). */
export function retryErrorType(error: Error): RetryErrorType {
  const sdkError = error as SdkError;
  if (isThrottlingError(sdkError)) return 'THROTTLING';
  if (isTransientError(sdkError)) return 'TRANSIENT';
  if (isServerError(sdkError)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}

/** A dependency's failure that trying again later may cure (throttling or transient, as above). */
export function isRetryableFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const type = retryErrorType(error as Error);
  return type === 'THROTTLING' || type === 'TRANSIENT';
}

export interface CallMetadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts?: number;
  totalRetryDelay?: number;
  clockSkewCorrected?: boolean;
}
type CallError = Error & { code?: string; $metadata?: CallMetadata };

const asError = (thrown: unknown): CallError =>
  thrown instanceof Error ? thrown : Object.assign(new Error(String(thrown)), { cause: thrown });

/**
 * Runs `attempt` as the SDK's retry middleware does with `strategy`: a token per call, refreshed
 * after each failure (the strategy refuses once the error is not retryable, the attempts are spent
 * or the budget is empty, and waits the backoff itself), a success paid back into the budget. The
 * error that ends the call carries `$metadata.attempts` and `totalRetryDelay`, as the SDK's does.
 */
export async function withRetries<T>(strategy: RetryStrategy, attempt: (number: number) => Promise<T>): Promise<T> {
  let token = await strategy.acquireInitialRetryToken('');
  let totalRetryDelay = 0;
  for (;;) {
    try {
      const output = await attempt(token.getRetryCount() + 1);
      strategy.recordSuccess(token);
      return output;
    } catch (thrown) {
      const error = asError(thrown);
      const waitStarted = Date.now();
      try {
        token = await strategy.refreshRetryTokenForRetry(token, {
          error: error as SdkError,
          errorType: retryErrorType(error),
        });
      } catch {
        error.$metadata = { ...error.$metadata, attempts: token.getRetryCount() + 1, totalRetryDelay };
        throw error;
      }
      const delay = token.getRetryDelay();
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      totalRetryDelay += Date.now() - waitStarted;
    }
  }
}

/**
 * An error answer of a JSON protocol: its name (`__type` without its namespace, or the status when
 * the body is not the service's), its message, and the body's other fields.
 */
export function serviceFault(
  status: number,
  text: string,
): { name: string; message: string | undefined; details: Record<string, unknown> } {
  let fields: Record<string, unknown> = {};
  try {
    fields = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (a proxy's page): the status names it
  }
  const { __type, message, Message, ...details } = fields as { __type?: string; message?: string; Message?: string };
  return { name: __type?.split('#').pop() || `HTTP${status}`, message: message ?? Message, details };
}

// --- endpoints ----------------------------------------------------------------------------------

/** The partitions whose regional endpoints are `<service>.<region>.<suffix>` (the SDK's partitions.json). */
const PARTITIONS = [
  { name: 'aws', regions: /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/, suffix: 'amazonaws.com' },
  { name: 'aws-cn', regions: /^cn-\w+-\d+$/, suffix: 'amazonaws.com.cn' },
  { name: 'aws-us-gov', regions: /^us-gov-\w+-\d+$/, suffix: 'amazonaws.com' },
];

/** The SDK's endpoint variable names where they are not the host prefix's (SES v2's host is `email`). */
const ENDPOINT_VARIABLES: Record<string, string> = {
  secretsmanager: 'SECRETS_MANAGER',
  email: 'SESV2',
  'rds-data': 'RDS_DATA',
};

/** An endpoint setting this client does not implement: thrown at the first call, before any request. */
export class EndpointNotSupported extends Error {
  override name = 'EndpointNotSupported';
}

/** AWS_USE_FIPS_ENDPOINT and AWS_USE_DUALSTACK_ENDPOINT, as the SDK reads them. */
export interface EndpointVariants {
  useFipsEndpoint: boolean;
  useDualstackEndpoint: boolean;
}

/**
 * The endpoint of `service` (its host prefix: `dynamodb`, `sqs`, `secretsmanager`) in `region`:
 * `explicit` (AWS_ENDPOINT_URL_<SERVICE>) when set, as for the SDK; otherwise the regional one.
 */
export function serviceEndpoint(
  service: string,
  region: string,
  explicit: string | undefined,
  variants: EndpointVariants = config.aws,
): URL {
  if (explicit) return new URL(explicit);
  const { useFipsEndpoint, useDualstackEndpoint } = variants;
  const variant = useFipsEndpoint
    ? 'AWS_USE_FIPS_ENDPOINT'
    : useDualstackEndpoint
      ? 'AWS_USE_DUALSTACK_ENDPOINT'
      : undefined;
  const variable = `AWS_ENDPOINT_URL_${ENDPOINT_VARIABLES[service] ?? service.toUpperCase()}`;
  if (variant) {
    throw new EndpointNotSupported(
      `${variant}=true is not supported by the store's ${service} client (it has no endpoint rules); ` +
        `set ${variable} to the endpoint instead.`,
    );
  }
  const partition = PARTITIONS.find((p) => p.regions.test(region));
  if (!partition) {
    const known = PARTITIONS.map((p) => p.name).join(', ');
    throw new EndpointNotSupported(
      `The region ${JSON.stringify(region)} is not in a partition the store's ${service} client knows (${known}); ` +
        `set ${variable} to the endpoint instead.`,
    );
  }
  return new URL(`https://${service}.${region}.${partition.suffix}/`);
}

// --- sockets and timeouts -----------------------------------------------------------------------

/** A socket that does not connect within `connectMs` is destroyed with a TimeoutError (ETIMEDOUT). */
function armConnectTimeout(socket: Socket, connectMs: number): Socket {
  if (!socket.connecting) return socket;
  const timer = setTimeout(() => {
    socket.destroy(
      Object.assign(new Error(`connection not established within ${connectMs} ms`), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      }),
    );
  }, connectMs);
  socket.once('connect', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
  return socket;
}

export interface AwsAgents {
  http: Agent;
  https: Agent;
}

/** Keep-alive agents whose sockets must connect within `connectMs` (the timer runs only while connecting). */
export function connectTimeoutAgents(connectMs: number, maxSockets: number): AwsAgents {
  class ConnectTimeoutHttpAgent extends HttpAgent {
    override createConnection(...args: Parameters<HttpAgent['createConnection']>) {
      return armConnectTimeout(super.createConnection(...args) as Socket, connectMs);
    }
  }
  class ConnectTimeoutHttpsAgent extends HttpsAgent {
    override createConnection(...args: Parameters<HttpsAgent['createConnection']>) {
      return armConnectTimeout(super.createConnection(...args) as Socket, connectMs);
    }
  }
  return {
    http: new ConnectTimeoutHttpAgent({ keepAlive: true, maxSockets }),
    https: new ConnectTimeoutHttpsAgent({ keepAlive: true, maxSockets }),
  };
}

// --- the request --------------------------------------------------------------------------------

/** The SDK's User-Agent sections, with this application in place of the SDK's name. */
function userAgent(api: string): string {
  const { executionEnv, userAgentAppId } = config.aws;
  const sections = [
    'helpdesk-api',
    'ua/2.1',
    `os/${platform()}#${release()}`,
    'lang/js',
    `md/nodejs#${process.versions.node}`,
    `api/${api}`,
  ];
  if (executionEnv) sections.push(`exec-env/${executionEnv}`);
  if (userAgentAppId) sections.push(`app/${userAgentAppId}`);
  return sections.map((s) => s.replace(/[^!$%&'*+\-.^_`|~\w#/]/g, '-')).join(' ');
}

const userAgents = new Map<string, string>();

/**
 * The User-Agent (made at first use: the environment is not read at import, config.ts) and, inside
 * Lambda, the trace header of the invocation being served, as the SDK's recursion-detection step adds
 * it. The signer leaves both unsigned (X-Ray may rewrite the trace header on the way), so S3's calls
 * (files.ts) add them to headers signed without them.
 */
export function callHeaders(api: string): Record<string, string> {
  let agent = userAgents.get(api);
  if (!agent) userAgents.set(api, (agent = userAgent(api)));
  const traceId = config.lambdaTraceId;
  return { 'user-agent': agent, ...(config.lambdaFunctionName && traceId ? { 'x-amzn-trace-id': traceId } : {}) };
}

/** The SDK's threshold for a clock taken to be off (isClockSkewed in @aws-sdk/core). */
const CLOCK_SKEW_MS = 240_000;
/** An answer that took longer than this says nothing about the clock (the SDK's getUpdatedSystemClockOffset). */
const STALE_ANSWER_MS = 900_000;

export interface AwsReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface AwsPost {
  url: URL;
  region: string;
  contentType: string;
  /**
   * The X-Amz-Target header (`DynamoDB_20120810.GetItem`, `AmazonSQS.SendMessage` ...); none for a REST JSON API (SES
   * v2), whose path names the operation.
   */
  target?: string;
  body: string;
  /** The call's invocation id (one for all its attempts) and which attempt of how many this is. */
  invocationId: string;
  attempt: number;
  maxAttempts: number;
}

export interface AwsTransport {
  agents: AwsAgents;
  /** Milliseconds an attempt may go without a byte once its socket is connected. */
  attemptMs: number;
  /**
   * Told of each attempt that got an answer: how long it waited for a socket of the pool (and for it
   * to connect), and how long it then took on the wire (the service's own time, plus the network).
   * The local runtime's burst benchmark reads where a call's time goes (consumer/consumer-timings.ts).
   */
  timed?: (queuedMs: number, wireMs: number) => void;
}

/**
 * One service's client state: its signing name and its clock offset (the SDK's
 * `systemClockOffset`, per client). `send` makes one attempt.
 */
export class AwsService {
  private clockOffsetMs = 0;

  constructor(
    /** The signing name (`dynamodb`, `sqs`, `secretsmanager`). */
    readonly signingName: string,
    /** How the User-Agent's `api/` section names the service. */
    private readonly api: string,
    /** The service's error for an answer that is not 2xx (its name, message and fields). */
    private readonly errorOf: (reply: AwsReply) => CallError,
  ) {}

  /** A new call's invocation id (the SDK's amz-sdk-invocation-id). */
  static invocationId(): string {
    return randomUUID();
  }

  /** Sends `post` once: its 2xx answer's text, or the service's error (or the socket's). */
  async send(post: AwsPost, { agents, attemptMs, timed }: AwsTransport): Promise<string> {
    const { url, region, contentType, target, body } = post;
    const offsetAtSigning = this.clockOffsetMs;
    const signed = await signPost({
      service: this.signingName,
      region,
      path: url.pathname,
      headers: {
        host: url.host,
        'content-type': contentType,
        ...(target ? { 'x-amz-target': target } : {}),
        'amz-sdk-invocation-id': post.invocationId,
        'amz-sdk-request': `attempt=${post.attempt}; max=${post.maxAttempts}`,
        ...callHeaders(this.api),
      },
      body,
      date: new Date(Date.now() + offsetAtSigning),
    });
    const sentAt = Date.now();
    const secure = url.protocol === 'https:';
    const queuedAt = performance.now();
    let onWireAt: number | undefined;
    const reply = await new Promise<AwsReply>((resolve, reject) => {
      // Called on the module at call time, so that X-Ray's capture of node:http (traced functions) sees it.
      const request = (secure ? https : http).request(
        {
          method: 'POST',
          hostname: url.hostname,
          port: url.port || (secure ? 443 : 80),
          path: url.pathname,
          headers: { ...signed, 'content-length': Buffer.byteLength(body) },
          agent: secure ? agents.https : agents.http,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      // The SDK's socket timeout: counted while the request is on a socket, not while it queues for one.
      request.setTimeout(attemptMs, () => {
        request.destroy(
          Object.assign(new Error(`Connection timed out after ${attemptMs} ms`), { name: 'TimeoutError' }),
        );
      });
      request.on('error', reject);
      if (timed) {
        request.once('socket', (socket: Socket) => {
          if (!socket.connecting) onWireAt = performance.now();
          else socket.once('connect', () => (onWireAt = performance.now()));
        });
      }
      request.end(body);
    });
    if (timed) {
      const answeredAt = performance.now();
      timed((onWireAt ?? answeredAt) - queuedAt, answeredAt - (onWireAt ?? answeredAt));
    }
    this.sampleClock(reply, sentAt);
    if (reply.status >= 200 && reply.status < 300) return reply.text;
    const error = this.errorOf(reply);
    if (Math.abs(this.clockOffsetMs) >= CLOCK_SKEW_MS && this.clockOffsetMs !== offsetAtSigning) {
      error.$metadata = { ...error.$metadata, clockSkewCorrected: true };
    }
    throw error;
  }

  /**
   * The SDK signer's clock sampling: the server's `Date` minus ours, unless a cache answered (`Age`) or the answer was
   * stale.
   */
  private sampleClock({ headers }: AwsReply, sentAt: number): void {
    if (headers.age !== undefined || !headers.date) return;
    const serverTime = Date.parse(headers.date);
    const received = Date.now();
    if (Number.isNaN(serverTime) || received - sentAt > STALE_ANSWER_MS) return;
    this.clockOffsetMs = serverTime - received;
  }
}
