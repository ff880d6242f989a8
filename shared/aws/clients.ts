/**
 * The DynamoDB client (dynamodb.ts), built once per process (module scope) and reused across
 * invocations, and the sockets and timeouts it shares with SQS and Secrets Manager (aws-json.ts).
 * S3 (files.ts) is called through signed fetch calls: no bundle carries an SDK client.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { StandardRetryStrategy } from '@smithy/util-retry';
import { config } from '../config';
import { connectTimeoutAgents, serviceEndpoint, type AwsAgents } from './aws-request';
import { DynamoDB } from './dynamodb';

/**
 * A call that hangs fails rather than running into the function's timeout (15 s): on AWS each
 * attempt may take 1 s to connect (half the attempt's time) and then 2 s without a byte from
 * DynamoDB (which answers in milliseconds, so a silent connection is a hung one), and a call makes
 * at most 4 attempts (the SDK's DynamoDB default), so a TimeoutError reaches the error middleware
 * (a JSON 503 with Retry-After) after about 8 s at worst. HELPDESK_DEPENDENCY_TIMEOUT_MS replaces the
 * 2 s: the local runtime sets it high, its engines being far slower under load. Too short a timeout
 * would do harm: a write given up on may still commit, and a client retrying the 503 would then
 * write it twice.
 *
 * Both timers run only while the call is on the wire: the connection timer while a socket is
 * connecting, the inactivity timer once it is connected. Neither runs while a request waits for a
 * free socket, so a burst of healthy requests queued in one process (the local runtime serves every
 * function through this one client) is never taken for a hung call. A timer started with the
 * request (an AbortSignal's, or the SDK's own timeouts) would count its queue time too.
 */
const attemptMs = config.dependencyTimeoutMs ?? 2000;
const connectMs = attemptMs / 2;

/**
 * Sockets per process (the SDK's default): Lambda serves one request at a time; the local runtime
 * serves every function at once, and more sockets than this only make DynamoDB Local's JVM accept
 * connections more slowly under a burst (measured: 256 sockets opened at once took over a second
 * each to connect).
 */
const MAX_SOCKETS = 50;

/**
 * The SDK DynamoDB client's retry settings: 4 attempts (the worst case above, about 8 s, counts on
 * it) and a 25 ms backoff base (throttling: the strategy's own, 1 s), as @aws-sdk/client-dynamodb
 * resolves them (tests/unit/aws-retries.test.ts compares); the strategy keeps the retry budget of
 * the process (docs/operations.md, "Retries").
 */
export const DYNAMODB_RETRIES = { maxAttempts: 4, baseDelay: 25 };
/** The strategy, and with it the process's retry budget (the burst benchmark reports its lowest point). */
export const dynamoRetryStrategy = new StandardRetryStrategy(DYNAMODB_RETRIES);

const newAgents = () => connectTimeoutAgents(connectMs, MAX_SOCKETS);
const sharedAgents = newAgents();

/**
 * Sockets of their own for work that must not queue behind the requests: the local runtime runs
 * the stream consumer in the same process as every route, and a burst's requests fill the shared
 * pool's queue (hundreds deep), where each of the consumer's calls waited its turn: measured, a
 * stream batch of 3 records took 34 s during a burst of 500 creates, and the counts stalled
 * (docs/data-model.md, "The stream consumer"). On AWS each function is a process of its own anyway.
 */
interface Room {
  name: string;
  agents: AwsAgents;
}
const rooms = new AsyncLocalStorage<Room>();
const roomsByName = new Map<string, Room>();
export function withOwnSockets<T>(name: string, work: () => Promise<T>): Promise<T> {
  let room = roomsByName.get(name);
  if (!room) roomsByName.set(name, (room = { name, agents: newAgents() }));
  return rooms.run(room, work);
}

/** Read at each call (dynamodb.ts, aws-json.ts): the sockets of the caller's room, else the shared ones. */
export const agents: AwsAgents = {
  get http() {
    return (rooms.getStore()?.agents ?? sharedAgents).http;
  },
  get https() {
    return (rooms.getStore()?.agents ?? sharedAgents).https;
  },
};
/** Told each call's wait for a socket and time on the wire, and the room it ran in. */
export type CallObserver = (room: string, queuedMs: number, wireMs: number) => void;
let callObserver: CallObserver | undefined;
/**
 * Outside Lambda, whoever times the calls registers here (the stream consumer's timings, which the
 * burst benchmark reads): this layer knows nothing of its callers.
 */
export function observeCalls(observer: CallObserver): void {
  callObserver = observer;
}
const timed = config.lambdaFunctionName
  ? undefined
  : (queuedMs: number, wireMs: number) => callObserver?.(rooms.getStore()?.name ?? 'shared', queuedMs, wireMs);
export const transport = { agents, attemptMs, ...(timed ? { timed } : {}) };

export const dynamo = new DynamoDB(() => ({
  endpoint: config.aws.dynamoEndpoint,
  region: config.aws.region,
  retryStrategy: dynamoRetryStrategy,
  maxAttempts: DYNAMODB_RETRIES.maxAttempts,
  transport,
}));

/**
 * In Lambda the environment is complete at init: an endpoint setting the store's clients do not
 * implement (FIPS, dual-stack, a region outside the partitions they know) fails the function's init
 * with its message, rather than its first request. Elsewhere it is refused at the first call.
 */
if (config.lambdaFunctionName) serviceEndpoint('dynamodb', config.aws.region, config.aws.dynamoEndpoint);
