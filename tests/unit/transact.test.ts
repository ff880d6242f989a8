/** Fault injection: DynamoDB cancelling transactions for conflicts (what many concurrent creates meet on AWS). */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const send = vi.hoisted(() => vi.fn());
vi.mock('../../shared/aws/clients', () => ({ dynamo: { send } }));

const { CONFLICT_ATTEMPTS, ConditionFailed, refusedWhole, transact } = await import('../../shared/store/transact');
const { errorResponse } = await import('../../shared/middleware/index');

function cancelled(...codes: string[]): Error {
  return Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

beforeEach(() => {
  send.mockReset();
});

describe('transact', () => {
  it('sends a transaction cancelled by a conflict again: it wrote nothing', async () => {
    send.mockRejectedValueOnce(cancelled('None', 'TransactionConflict')).mockResolvedValueOnce({});
    await transact([]);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it(`gives up after ${CONFLICT_ATTEMPTS} attempts with an error the API answers 503 with Retry-After`, async () => {
    send.mockImplementation(() => Promise.reject(cancelled('TransactionConflict')));
    const error = await transact([]).catch((e: unknown) => e);
    expect(send).toHaveBeenCalledTimes(CONFLICT_ATTEMPTS);
    const response = errorResponse(error);
    expect(response.statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toBe('1');
  });

  it('a failed condition is reported at once, with its positions, not retried', async () => {
    send.mockImplementation(() => Promise.reject(cancelled('None', 'ConditionalCheckFailed', 'TransactionConflict')));
    const error = await transact([]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConditionFailed);
    expect((error as InstanceType<typeof ConditionFailed>).positions).toEqual([1]);
    expect(send).toHaveBeenCalledTimes(1);
  });
});

describe('refusedWhole: whether a failed write surely applied nothing (a queue reservation is given back then)', () => {
  const failure = async (error: Error, items = 2) => {
    send.mockImplementation(() => Promise.reject(error));
    return transact(Array.from({ length: items }, () => ({ Put: { TableName: 't', Item: {} } }))).catch(
      (e: unknown) => e,
    );
  };
  const withAttempts = (error: Error, attempts: number) => Object.assign(error, { $metadata: { attempts } });

  it('a refusal: a failed condition, a conflict, throttling', async () => {
    expect(refusedWhole(await failure(cancelled('ConditionalCheckFailed', 'None')))).toBe(true);
    expect(refusedWhole(await failure(cancelled('TransactionConflict')))).toBe(true);
    expect(
      refusedWhole(
        await failure(withAttempts(Object.assign(new Error('c'), { name: 'ConditionalCheckFailedException' }), 1), 1),
      ),
    ).toBe(true);
    expect(refusedWhole(await failure(cancelled('ThrottlingError')))).toBe(true);
    expect(
      refusedWhole(
        withAttempts(
          Object.assign(new Error('t'), { name: 'ProvisionedThroughputExceededException', $fault: 'client' }),
          4,
        ),
      ),
    ).toBe(true);
  });

  it(
    'not when the write may have happened: a server error, a lost connection, a plain write whose retry failed ' +
      'its condition',
    async () => {
      expect(
        refusedWhole(
          Object.assign(new Error('s'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }),
        ),
      ).toBe(false);
      expect(refusedWhole(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(false);
      expect(
        refusedWhole(
          await failure(withAttempts(Object.assign(new Error('c'), { name: 'ConditionalCheckFailedException' }), 2), 1),
        ),
      ).toBe(false);
      expect(refusedWhole(new Error('anything else'))).toBe(false);
    },
  );
});
