/**
 * DynamoDB through its JSON protocol (DynamoDB_20120810) without the SDK's client: the document
 * client's commands (GetCommand, QueryCommand ...: the same inputs and outputs, native values
 * marshalled by @aws-sdk/util-dynamodb), each sent as one signed POST over node:http. The SDK's client
 * was 175 KiB of every bundle and most of a request's CPU outside our code (schema-driven
 * serialisation, a middleware stack of some 20 steps, each copying the input); docs/benchmarks.md
 * has the figures.
 *
 * As the SDK's client does: credentials from the function's environment; the standard retry
 * strategy (up to `maxAttempts`, full-jitter backoff from 100 ms, or 500 ms for throttling; 5xx,
 * throttling, timeouts and dropped connections are retried, nothing else); a service error thrown
 * with the service's name (`ConditionalCheckFailedException` ...), message, `$metadata` and the
 * fields its body carries (`CancellationReasons`); a call that got no answer thrown as the SDK's HTTP
 * handler throws it (a `TimeoutError`, or the socket's error with its `code`).
 *
 * `intercept` takes the place of the SDK's middleware stack for the local runtime, the tests and the
 * benchmark (grants, conflict emulation, fault injection, request counting): nothing in a Lambda
 * bundle registers one.
 */
import { randomUUID } from 'node:crypto';
import type { Agent } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type * as Doc from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { backoffMs, serviceFault, signedJsonPost } from './aws-json';

type Item = Record<string, NativeAttributeValue>;
type Wire = Record<string, unknown>;
type Output<T> = Omit<T, '$metadata'>;

export type DynamoOperation = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'Scan' | 'BatchGetItem' | 'BatchWriteItem' | 'TransactWriteItems';

/** A command of the document client: its operation, and its input with native values. */
export interface DynamoCommand<I extends object, O extends object> {
  readonly operation: DynamoOperation;
  readonly input: I;
  /** Only a type: what `send` resolves to. */
  readonly output?: O;
}

/** The command class of `operation`: `new GetCommand(input)`, as with the SDK's document client. */
const commandOf = <I extends object, O extends object>(operation: DynamoOperation) =>
  class {
    readonly operation = operation;
    declare readonly output?: O;
    constructor(readonly input: I) {}
  } satisfies new (input: I) => DynamoCommand<I, O>;

export const GetCommand = commandOf<Doc.GetCommandInput, Output<Doc.GetCommandOutput>>('GetItem');
export const PutCommand = commandOf<Doc.PutCommandInput, Output<Doc.PutCommandOutput>>('PutItem');
export const UpdateCommand = commandOf<Doc.UpdateCommandInput, Output<Doc.UpdateCommandOutput>>('UpdateItem');
export const DeleteCommand = commandOf<Doc.DeleteCommandInput, Output<Doc.DeleteCommandOutput>>('DeleteItem');
export const QueryCommand = commandOf<Doc.QueryCommandInput, Output<Doc.QueryCommandOutput>>('Query');
export const ScanCommand = commandOf<Doc.ScanCommandInput, Output<Doc.ScanCommandOutput>>('Scan');
export const BatchGetCommand = commandOf<Doc.BatchGetCommandInput, Output<Doc.BatchGetCommandOutput>>('BatchGetItem');
export const BatchWriteCommand = commandOf<Doc.BatchWriteCommandInput, Output<Doc.BatchWriteCommandOutput>>('BatchWriteItem');
export const TransactWriteCommand = commandOf<Doc.TransactWriteCommandInput, Output<Doc.TransactWriteCommandOutput>>('TransactWriteItems');
export type QueryCommandInput = Doc.QueryCommandInput;
export type TransactWriteCommandInput = Doc.TransactWriteCommandInput;

// --- marshalling --------------------------------------------------------------------------------

const toWire = (value: Item): Wire => marshall(value, { removeUndefinedValues: true });
const fromWire = (value: unknown): Item => unmarshall(value as Parameters<typeof unmarshall>[0]);

/** An action's native fields (Key, Item, values, start key) as attribute values; the rest as given. */
function actionToWire(action: Wire): Wire {
  const wire = { ...action };
  for (const field of ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const) {
    if (action[field] !== undefined) wire[field] = toWire(action[field] as Item);
  }
  return wire;
}

type BatchWriteRequest = { PutRequest?: { Item: Wire }; DeleteRequest?: { Key: Wire } };
const mapValues = <T, U>(record: Record<string, T>, fn: (value: T) => U): Record<string, U> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
const batchWriteRequests = (tables: Record<string, BatchWriteRequest[]>, convert: (value: Wire) => Wire) =>
  mapValues(tables, (requests) =>
    requests.map((r) => (r.PutRequest ? { PutRequest: { Item: convert(r.PutRequest.Item) } } : { DeleteRequest: { Key: convert(r.DeleteRequest!.Key) } })),
  );

function inputToWire(operation: DynamoOperation, input: Wire): Wire {
  switch (operation) {
    case 'BatchGetItem':
      return { ...input, RequestItems: mapValues(input.RequestItems as Record<string, Wire>, (spec) => ({ ...spec, Keys: (spec.Keys as Item[]).map(toWire) })) };
    case 'BatchWriteItem':
      return { ...input, RequestItems: batchWriteRequests(input.RequestItems as Record<string, BatchWriteRequest[]>, toWire) };
    case 'TransactWriteItems':
      return {
        ...input,
        TransactItems: (input.TransactItems as Record<string, Wire>[]).map((item) => mapValues(item, actionToWire)),
        // As the SDK does (an idempotency token): the attempts of one call carry the same token, so
        // an attempt retried after its answer was lost is taken by DynamoDB for the one it made.
        ClientRequestToken: input.ClientRequestToken ?? randomUUID(),
      };
    default:
      return actionToWire(input);
  }
}

function outputFromWire(wire: Wire): Wire {
  const out = { ...wire };
  if (wire.Item) out.Item = fromWire(wire.Item);
  if (wire.Attributes) out.Attributes = fromWire(wire.Attributes);
  if (wire.LastEvaluatedKey) out.LastEvaluatedKey = fromWire(wire.LastEvaluatedKey);
  if (wire.Items) out.Items = (wire.Items as Wire[]).map(fromWire);
  if (wire.Responses) out.Responses = mapValues(wire.Responses as Record<string, Wire[]>, (items) => items.map(fromWire));
  if (wire.UnprocessedKeys) {
    out.UnprocessedKeys = mapValues(wire.UnprocessedKeys as Record<string, Wire>, (spec) => ({ ...spec, Keys: (spec.Keys as Wire[]).map(fromWire) }));
  }
  if (wire.UnprocessedItems) out.UnprocessedItems = batchWriteRequests(wire.UnprocessedItems as Record<string, BatchWriteRequest[]>, fromWire);
  return out;
}

// --- errors -------------------------------------------------------------------------------------

export interface DynamoMetadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts?: number;
  totalRetryDelay?: number;
}

/** An error DynamoDB answered: its name and message, and the other fields of its body. */
export class DynamoDBServiceError extends Error {
  readonly $fault: 'client' | 'server';
  /** A cancelled transaction's reason per item (an `Item` here is in DynamoDB's attribute-value form). */
  CancellationReasons?: { Code?: string; Message?: string; Item?: Wire }[];
  constructor(
    name: string,
    message: string,
    public $metadata: DynamoMetadata,
    details: Wire = {},
  ) {
    super(message);
    this.name = name;
    this.$fault = ($metadata.httpStatusCode ?? 500) >= 500 ? 'server' : 'client';
    Object.assign(this, details);
  }
}

function serviceError(status: number, body: string, requestId: string | undefined): DynamoDBServiceError {
  const { name, message, details } = serviceFault(status, body);
  return new DynamoDBServiceError(name, message ?? name, { httpStatusCode: status, ...(requestId ? { requestId } : {}) }, details);
}

// The SDK's classification (@smithy/service-error-classification): what a retry may cure.
const THROTTLING = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
const TRANSIENT = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);
const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

type CallError = Error & { code?: string; $metadata?: DynamoMetadata };

/** The backoff base when `error` may be cured by trying again (ms), or undefined when it may not. */
function retryDelayBase(error: CallError): number | undefined {
  const status = error.$metadata?.httpStatusCode;
  if (THROTTLING.has(error.name) || status === 429) return 500;
  if (TRANSIENT.has(error.name) || TRANSIENT_STATUS.has(status ?? 0) || CONNECTION_CODES.has(error.code ?? '')) return 100;
  return undefined;
}

// --- the client ---------------------------------------------------------------------------------

/** One call as interceptors see it: the operation and the command's (native) input. */
export interface DynamoCall {
  operation: DynamoOperation;
  input: Wire;
}
/** Wraps a call (or one attempt of it): may inspect or change the input, answer or throw instead. */
export type DynamoInterceptor = (call: DynamoCall, next: () => Promise<Wire>) => Promise<Wire>;

export interface DynamoOptions {
  /** The endpoint (AWS_ENDPOINT_URL_DYNAMODB), or DynamoDB's in the region. */
  endpoint: string | undefined;
  region: string;
  maxAttempts: number;
  /** Milliseconds an attempt may go without a byte from DynamoDB once its socket is connected. */
  attemptMs: number;
  /** Keep-alive agents (their connection timeouts and socket limits: clients.ts). */
  agents: { http: Agent; https: Agent };
}

export class DynamoDB {
  private resolved?: { options: DynamoOptions; url: URL };
  private readonly calls: DynamoInterceptor[] = [];
  private readonly attempts: DynamoInterceptor[] = [];

  /**
   * `settings` are read at the first call, not when the client is built (at import): the local
   * runtime and the benchmark import the store before they set the endpoint.
   */
  constructor(private readonly settings: () => DynamoOptions) {}

  private get setup() {
    if (!this.resolved) {
      const options = this.settings();
      this.resolved = { options, url: new URL(options.endpoint ?? `https://dynamodb.${options.region}.amazonaws.com/`) };
    }
    return this.resolved;
  }

  /**
   * Adds `interceptor` around every call, retries included (or, with `eachAttempt`, around every
   * attempt: from just before its request is signed to its answer). The first added is outermost.
   * Returns its removal.
   */
  intercept(interceptor: DynamoInterceptor, { eachAttempt = false } = {}): () => void {
    const list = eachAttempt ? this.attempts : this.calls;
    list.push(interceptor);
    return () => {
      const at = list.indexOf(interceptor);
      if (at >= 0) list.splice(at, 1);
    };
  }

  async send<I extends object, O extends object>(command: DynamoCommand<I, O>): Promise<O> {
    const call: DynamoCall = { operation: command.operation, input: command.input as Wire };
    return (await chain(this.calls, call, () => this.withRetries(call))) as O;
  }

  private async withRetries(call: DynamoCall): Promise<Wire> {
    const body = JSON.stringify(inputToWire(call.operation, call.input));
    let totalRetryDelay = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await chain(this.attempts, call, async () => outputFromWire(await this.post(call.operation, body)));
      } catch (caught) {
        const error = caught as CallError;
        const base = retryDelayBase(error);
        if (base === undefined || attempt >= this.setup.options.maxAttempts) {
          error.$metadata = { ...error.$metadata, attempts: attempt, totalRetryDelay };
          throw error;
        }
        const delay = backoffMs(attempt, base);
        totalRetryDelay += delay;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async post(operation: DynamoOperation, body: string): Promise<Wire> {
    const { url, options } = this.setup;
    const signed = await signedJsonPost('dynamodb', options.region, url, 'application/x-amz-json-1.0', `DynamoDB_20120810.${operation}`, body);
    const secure = url.protocol === 'https:';
    const reply = await new Promise<{ status: number; text: string; requestId?: string }>((resolve, reject) => {
      // Called on the module at call time, so that X-Ray's capture of node:http (traced functions) sees it.
      const request = (secure ? https : http).request(
        {
          method: 'POST',
          hostname: url.hostname,
          port: url.port || (secure ? 443 : 80),
          path: url.pathname,
          headers: { ...signed, 'content-length': Buffer.byteLength(body) },
          agent: secure ? options.agents.https : options.agents.http,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const requestId = response.headers['x-amzn-requestid'];
            resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ...(typeof requestId === 'string' ? { requestId } : {}) });
          });
        },
      );
      // The SDK's socket timeout: counted while the request is on a socket, not while it queues for one.
      request.setTimeout(options.attemptMs, () => {
        request.destroy(Object.assign(new Error(`Connection timed out after ${options.attemptMs} ms`), { name: 'TimeoutError' }));
      });
      request.on('error', reject);
      request.end(body);
    });
    if (reply.status >= 200 && reply.status < 300) return JSON.parse(reply.text) as Wire;
    throw serviceError(reply.status, reply.text, reply.requestId);
  }
}

function chain(interceptors: readonly DynamoInterceptor[], call: DynamoCall, last: () => Promise<Wire>, from = 0): Promise<Wire> {
  const interceptor = interceptors[from];
  return interceptor ? interceptor(call, () => chain(interceptors, call, last, from + 1)) : last();
}
