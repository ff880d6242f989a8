/**
 * Fault injection for the in-process local runtime (tests only; nothing here ships).
 *
 * DynamoDB: an interceptor around the store client's calls (shared/aws/dynamodb.ts), outside its
 * retries: an injected error is what the handler sees once the client has given up. S3: the store signs its requests
 * itself and calls the global `fetch` at call time (shared/aws/s3.ts), so the test wraps `globalThis.fetch` for the S3
 * engine's host only; the store's retries of a 5xx go through the wrapper too, and every attempt of a faulted call
 * fails.
 *
 * While armed, every DynamoDB command and every S3 call is a numbered step; a run records its steps,
 * and `faults` says which step numbers fail and how.
 */
import { DynamoDBServiceError, type DynamoDB } from '../../shared/aws/dynamodb';

export type FaultKind = 'server' | 'network' | 'throttle' | 'lost-reply';
/** The kinds a step is failed with in the per-step matrix (`lost-reply` is tested on its own). */
export const FAULT_KINDS: FaultKind[] = ['server', 'network', 'throttle'];

export interface Step {
  service: 'dynamodb' | 's3';
  /** `TransactWriteItems`, `S3 PUT`, ... */
  label: string;
}

const $metadata = (httpStatusCode?: number) => ({ httpStatusCode, attempts: 3, totalRetryDelay: 0 });

/** What the store's client throws after its retries, for each kind of fault. */
function dynamoFault(kind: FaultKind, operation: string): Error {
  if (kind === 'server') {
    return new DynamoDBServiceError('InternalServerError', 'Internal server error (injected)', $metadata(500));
  }
  if (kind === 'network') {
    // What node:http rejects with when the connection drops.
    return Object.assign(new Error('socket hang up (injected)'), { code: 'ECONNRESET', $metadata: $metadata() });
  }
  if (operation === 'TransactWriteItems') {
    // A throttled transaction is cancelled with a per-item reason, not a throttling exception.
    return new DynamoDBServiceError(
      'TransactionCanceledException',
      'Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError] (injected)',
      $metadata(400),
      {
        CancellationReasons: [
          { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity of your table or index.' },
        ],
      },
    );
  }
  return new DynamoDBServiceError(
    'ProvisionedThroughputExceededException',
    'The level of configured provisioned throughput for the table was exceeded (injected)',
    $metadata(400),
  );
}

function s3Fault(kind: Exclude<FaultKind, 'lost-reply'>): Response {
  if (kind === 'network') {
    throw new TypeError('fetch failed', {
      cause: Object.assign(new Error('read ECONNRESET (injected)'), { code: 'ECONNRESET' }),
    });
  }
  const [status, code] = kind === 'server' ? [500, 'InternalError'] : [503, 'SlowDown'];
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected</Message></Error>`;
  return new Response(body, { status, headers: { 'Content-Type': 'application/xml' } });
}

export class FaultInjector {
  armed = false;
  steps: Step[] = [];
  faults = new Map<number, FaultKind>();
  /** Calls still running (a request must not leave work behind once it has answered). */
  inFlight = 0;
  /** Faults injected (steps made to fail; a step's retries count once), over the injector's life. */
  injected = 0;
  private hit = new Set<number>();
  private s3Calls = new Map<string, number>();

  constructor(dynamo: DynamoDB, s3Endpoint: string) {
    dynamo.intercept(async ({ operation }, next) => {
      if (!this.armed) return next();
      const index = this.steps.push({ service: 'dynamodb', label: operation }) - 1;
      const fault = this.faults.get(index);
      if (fault === 'lost-reply') {
        // DynamoDB applies the call, but its answer never arrives: an outcome the caller cannot know.
        this.count(index);
        await this.track(next);
        throw dynamoFault('network', operation);
      }
      if (fault) {
        this.count(index);
        throw dynamoFault(fault, operation);
      }
      return this.track(next);
    });
    const s3Host = new URL(s3Endpoint).host;
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!this.armed || new URL(url).host !== s3Host) return realFetch(input, init);
      const request = new Request(input, init);
      // The store re-signs and re-sends a call after a 5xx: the same method and URL is the same step.
      const call = `${request.method} ${request.url.split('?')[0]}`;
      let index = this.s3Calls.get(call);
      if (index === undefined) {
        index = this.steps.push({ service: 's3', label: `S3 ${request.method}` }) - 1;
        this.s3Calls.set(call, index);
      }
      const fault = this.faults.get(index);
      if (fault === 'lost-reply') throw new Error('lost-reply is injected into DynamoDB commands only');
      if (fault) {
        this.count(index);
        return s3Fault(fault);
      }
      return this.track(() => realFetch(request));
    };
  }

  private count(index: number): void {
    if (!this.hit.has(index)) this.injected++;
    this.hit.add(index);
  }

  private async track<T>(fn: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await fn();
    } finally {
      this.inFlight--;
    }
  }

  /** Runs `fn` with the injector armed: steps recorded from 0, `faults` applied. */
  async run<T>(faults: Map<number, FaultKind>, fn: () => Promise<T>): Promise<{ result: T; steps: Step[] }> {
    this.steps = [];
    this.s3Calls.clear();
    this.hit.clear();
    this.faults = faults;
    this.armed = true;
    try {
      return { result: await fn(), steps: this.steps };
    } finally {
      this.armed = false;
      this.faults = new Map();
    }
  }
}

/**
 * Fails the next TransactWriteItems the store's client sends (a stream consumer's batch failing part-way), once;
 * `failed()` says whether it came, `stop()` removes the interceptor.
 */
export function failNextTransaction(dynamo: DynamoDB): { failed(): boolean; stop(): void } {
  const fault = failTransactions(dynamo, 1);
  return { failed: () => fault.failures() > 0, stop: () => fault.stop() };
}

/** The next `count` TransactWriteItems calls fail as DynamoDB's 500 does (once the client has given up). */
export function failTransactions(dynamo: DynamoDB, count: number): { failures(): number; stop(): void } {
  let failures = 0;
  const stop = dynamo.intercept(({ operation }, next) => {
    if (failures < count && operation === 'TransactWriteItems') {
      failures++;
      throw Object.assign(new Error('injected'), { name: 'InternalServerError', $metadata: {} });
    }
    return next();
  });
  return { failures: () => failures, stop };
}
