/**
 * DynamoDB through its JSON protocol (DynamoDB_20120810) without the SDK's client: the document
 * client's commands (GetCommand, QueryCommand ...: the same inputs and outputs, native values
 * marshalled by @aws-sdk/util-dynamodb), each sent as one signed POST over node:http. The SDK's client
 * was 175 KiB of every bundle and most of a request's CPU outside our code (schema-driven
 * serialisation, a middleware stack of some 20 steps, each copying the input); docs/benchmarks.md
 * has the figures.
 *
 * As the SDK's client does: credentials from the function's environment; the SDK's own retry
 * strategy and error classification, clock-skew correction, endpoint, User-Agent and trace header
 * (aws-request.ts, held to the SDK's client by tests/unit/aws-retries.test.ts); binary attributes
 * (`Uint8Array`, `Buffer`) sent and received as base64, as the SDK's JSON protocol does; a service
 * error thrown with the service's name (`ConditionalCheckFailedException` ...), message, `$metadata`
 * and the fields its body carries (`CancellationReasons`); a call that got no answer thrown as the
 * SDK's HTTP handler throws it (a `TimeoutError`, or the socket's error with its `code`).
 *
 * `intercept` takes the place of the SDK's middleware stack for the local runtime, the tests and the
 * benchmark (grants, conflict emulation, fault injection, request counting): nothing in a Lambda
 * bundle registers one.
 */
import { randomUUID } from 'node:crypto';
import type * as Doc from '@aws-sdk/lib-dynamodb';
import { convertToNative, marshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import {
  AwsService,
  serviceEndpoint,
  serviceFault,
  withRetries,
  type AwsReply,
  type AwsTransport,
  type CallMetadata,
  type RetryStrategy,
} from './aws-request';

type Item = Record<string, NativeAttributeValue>;
type Wire = Record<string, unknown>;
type Output<T> = Omit<T, '$metadata'>;

export type DynamoOperation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem'
  | 'TransactWriteItems';

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
export const BatchWriteCommand = commandOf<Doc.BatchWriteCommandInput, Output<Doc.BatchWriteCommandOutput>>(
  'BatchWriteItem',
);
export const TransactWriteCommand = commandOf<Doc.TransactWriteCommandInput, Output<Doc.TransactWriteCommandOutput>>(
  'TransactWriteItems',
);
export type QueryCommandInput = Doc.QueryCommandInput;
export type TransactWriteCommandInput = Doc.TransactWriteCommandInput;

// --- marshalling --------------------------------------------------------------------------------

const toWire = (value: Item): Wire => binariesEncoded(marshall(value, { removeUndefinedValues: true }));

/**
 * What `unmarshall` makes of an item, for the kinds nearly every answer holds (S, BOOL, NULL, M, L and
 * N within the safe integers) without the library's per-value `Object.entries`, in half its time (a list
 * page's 108 items, measured: the library's conversion cost as much as parsing the answer). Every other
 * value (sets, binaries, numbers past 2^53, an unknown kind) goes to the library's own conversion, so
 * the result is always the library's: tests/unit/dynamodb-unmarshall.test.ts holds the two together.
 * A value is read by its one kind, as DynamoDB sends it.
 */
export function unmarshallItem(map: Wire): Item {
  const item: Item = {};
  for (const key of Object.keys(map)) item[key] = nativeOf(map[key] as Wire);
  return item;
}

function nativeOf(value: Wire): unknown {
  if (typeof value.S === 'string') return value.S;
  if (typeof value.N === 'string') {
    const number = Number(value.N);
    if (number <= Number.MAX_SAFE_INTEGER && number >= Number.MIN_SAFE_INTEGER) return number;
  } else if (typeof value.BOOL === 'boolean') return value.BOOL;
  else if (value.NULL === true) return null;
  else if (Array.isArray(value.L)) return (value.L as Wire[]).map(nativeOf);
  else if (typeof value.M === 'object' && value.M !== null && !Array.isArray(value.M))
    return unmarshallItem(value.M as Wire);
  return convertToNative(value as unknown as Parameters<typeof convertToNative>[0]);
}

const fromWire = (value: unknown): Item => unmarshallItem(value as Wire);

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
    requests.map((r) =>
      r.PutRequest
        ? { PutRequest: { Item: convert(r.PutRequest.Item) } }
        : { DeleteRequest: { Key: convert(r.DeleteRequest!.Key) } },
    ),
  );

/** A call's JSON body, as sent: its native values marshalled (the CPU benchmark's floor sends the same bodies). */
export const requestBody = (operation: DynamoOperation, input: object): string =>
  JSON.stringify(inputToWire(operation, input as Wire));

function inputToWire(operation: DynamoOperation, input: Wire): Wire {
  switch (operation) {
    case 'BatchGetItem':
      return {
        ...input,
        RequestItems: mapValues(input.RequestItems as Record<string, Wire>, (spec) => ({
          ...spec,
          Keys: (spec.Keys as Item[]).map(toWire),
        })),
      };
    case 'BatchWriteItem':
      return {
        ...input,
        RequestItems: batchWriteRequests(input.RequestItems as Record<string, BatchWriteRequest[]>, toWire),
      };
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

/**
 * Binary values (a `B`, or a member of a `BS`, as marshall leaves them) as base64, in the attribute
 * values marshall has just made, as the SDK's JSON protocol sends blobs (JSON.stringify would spell a
 * Uint8Array as an object of its bytes). Done here, where the attribute values are known, so that the
 * request's JSON needs no replacer: a replacer puts JSON.stringify on its slow path, 11 µs instead of
 * 4 for a GET's Query (measured). A Blob (which marshall also takes) cannot be read synchronously:
 * refused.
 */
function binariesEncoded(values: Wire): Wire {
  for (const key of Object.keys(values)) encodeBinaries(values[key] as Wire, key);
  return values;
}

function encodeBinaries(value: Wire, at: string): void {
  if (value.B !== undefined) value.B = base64Of(value.B, at);
  else if (Array.isArray(value.BS)) value.BS = value.BS.map((member) => base64Of(member, at));
  else if (Array.isArray(value.L)) for (const member of value.L as Wire[]) encodeBinaries(member, at);
  else if (typeof value.M === 'object' && value.M !== null) binariesEncoded(value.M as Wire);
}

function base64Of(binary: unknown, at: string): unknown {
  if (ArrayBuffer.isView(binary))
    return Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength).toString('base64');
  if (binary instanceof ArrayBuffer) return Buffer.from(binary).toString('base64');
  if (typeof Blob !== 'undefined' && binary instanceof Blob)
    throw new TypeError(
      `A Blob cannot be sent as a DynamoDB binary attribute (at ${JSON.stringify(at)}): pass a Uint8Array.`,
    );
  return binary;
}

/** An attribute value with its binaries (base64 on the wire) as Uint8Array, as the SDK's client returns them. */
function binariesDecoded(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(binariesDecoded);
  const attribute = value as Record<string, unknown>;
  if (typeof attribute.B === 'string') return { B: fromBase64(attribute.B) };
  if (Array.isArray(attribute.BS)) return { BS: (attribute.BS as string[]).map(fromBase64) };
  return mapValues(attribute, binariesDecoded);
}
const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

/**
 * Where a binary attribute value may begin in an answer: `{"B":"…` or `{"BS":[…`. A map key `B` is
 * followed by `{`, and text inside a string has its quotes escaped, so neither matches. (A bare `"B`
 * matched every `"BOOL"` too: measured, walking every list page's items cost 15% of its CPU.)
 */
const BINARY_VALUE = /\{\s*"B(?:"\s*:\s*"|S"\s*:\s*\[)/;

/**
 * Whether an answer may hold a binary value: a plain search for the two keys first, which rules out most answers
 * for a fraction of the pattern's cost (a list page's 46 KB answer: 0.3 µs against 23 to 35, measured), the pattern
 * only then.
 */
const mayHoldBinary = (text: string) => (text.includes('"B"') || text.includes('"BS"')) && BINARY_VALUE.test(text);

/** The answer's JSON; its binaries decoded only when it has any (most answers have none). */
function responseBody(text: string): Wire {
  const wire = JSON.parse(text) as Wire;
  return mayHoldBinary(text) ? (binariesDecoded(wire) as Wire) : wire;
}

function outputFromWire(wire: Wire): Wire {
  const out = { ...wire };
  if (wire.Item) out.Item = fromWire(wire.Item);
  if (wire.Attributes) out.Attributes = fromWire(wire.Attributes);
  if (wire.LastEvaluatedKey) out.LastEvaluatedKey = fromWire(wire.LastEvaluatedKey);
  if (wire.Items) out.Items = (wire.Items as Wire[]).map(fromWire);
  if (wire.Responses)
    out.Responses = mapValues(wire.Responses as Record<string, Wire[]>, (items) => items.map(fromWire));
  if (wire.UnprocessedKeys) {
    out.UnprocessedKeys = mapValues(wire.UnprocessedKeys as Record<string, Wire>, (spec) => ({
      ...spec,
      Keys: (spec.Keys as Wire[]).map(fromWire),
    }));
  }
  if (wire.UnprocessedItems)
    out.UnprocessedItems = batchWriteRequests(wire.UnprocessedItems as Record<string, BatchWriteRequest[]>, fromWire);
  return out;
}

// --- errors -------------------------------------------------------------------------------------

export type DynamoMetadata = CallMetadata;

/** An error DynamoDB answered: its name and message, and the other fields of its body. */
export class DynamoDBServiceError extends Error {
  readonly $fault: 'client' | 'server';
  /** The retryable trait of DynamoDB's model, as the SDK's exception classes carry it. */
  readonly $retryable?: { throttling?: boolean };
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
    if (MODELED_RETRYABLE.has(name)) this.$retryable = {};
    Object.assign(this, details);
  }
}

/**
 * DynamoDB's errors that its model marks `@retryable` (the SDK's classes give them `$retryable`,
 * which its classification retries): tests/unit/aws-retries.test.ts goes through every error class
 * of the SDK's DynamoDB client, so one added there fails the test until it is added here.
 */
const MODELED_RETRYABLE = new Set(['ReplicatedWriteConflictException']);

function serviceError({ status, text, headers }: AwsReply): DynamoDBServiceError {
  const { name, message, details } = serviceFault(status, text);
  const requestId = headers['x-amzn-requestid'];
  return new DynamoDBServiceError(
    name,
    message ?? name,
    { httpStatusCode: status, ...(typeof requestId === 'string' ? { requestId } : {}) },
    details,
  );
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
  /** The SDK's retry strategy (clients.ts: its standard one, with the DynamoDB client's settings). */
  retryStrategy: RetryStrategy;
  /** Attempts at most, as the strategy counts them (sent in each attempt's amz-sdk-request header). */
  maxAttempts: number;
  /**
   * Keep-alive agents (their connection timeouts and socket limits) and each attempt's inactivity timeout: clients.ts.
   */
  transport: AwsTransport;
}

export class DynamoDB {
  private resolved?: { options: DynamoOptions; url: URL };
  private readonly calls: DynamoInterceptor[] = [];
  private readonly attempts: DynamoInterceptor[] = [];
  private readonly service = new AwsService('dynamodb', 'dynamodb', serviceError);

  /**
   * `settings` are read at the first call, not when the client is built (at import): the local
   * runtime and the benchmark import the store before they set the endpoint. An endpoint setting
   * this client does not implement (FIPS, dual-stack, an unknown partition) is refused there.
   */
  constructor(private readonly settings: () => DynamoOptions) {}

  private get setup() {
    if (!this.resolved) {
      const options = this.settings();
      this.resolved = { options, url: serviceEndpoint('dynamodb', options.region, options.endpoint) };
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

  private withRetries(call: DynamoCall): Promise<Wire> {
    const { options, url } = this.setup;
    const body = requestBody(call.operation, call.input);
    const invocationId = AwsService.invocationId();
    return withRetries(options.retryStrategy, (attempt) =>
      chain(this.attempts, call, async () => {
        const post = {
          url,
          region: options.region,
          contentType: 'application/x-amz-json-1.0',
          target: `DynamoDB_20120810.${call.operation}`,
          body,
          invocationId,
          attempt,
          maxAttempts: options.maxAttempts,
        };
        return outputFromWire(responseBody(await this.service.send(post, options.transport)));
      }),
    );
  }
}

function chain(
  interceptors: readonly DynamoInterceptor[],
  call: DynamoCall,
  last: () => Promise<Wire>,
  from = 0,
): Promise<Wire> {
  const interceptor = interceptors[from];
  return interceptor ? interceptor(call, () => chain(interceptors, call, last, from + 1)) : last();
}
