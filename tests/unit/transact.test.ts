/** Fault injection: DynamoDB cancelling transactions for conflicts (what many concurrent creates meet on AWS). */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const send = vi.hoisted(() => vi.fn());
vi.mock('../../shared/store/clients', () => ({ dynamo: { send } }));

const { CONFLICT_ATTEMPTS, ConditionFailed, transact } = await import('../../shared/store/transact');
const { errorResponse } = await import('../../shared/middleware/index');

function cancelled(...codes: string[]): Error {
  return Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });
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
