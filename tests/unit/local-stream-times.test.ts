/**
 * The local stream's record times (infra/local/table-stream.ts `stampToTheSecond`): DynamoDB Local names the
 * minute, DynamoDB Streams the second; the poller's read time, kept inside the minute named, stands in.
 */
import { describe, expect, it } from 'vitest';
import { stampToTheSecond } from '../../infra/local/table-stream';

const MINUTE = Date.UTC(2026, 10, 29, 3, 0, 0);
const stamped = (named: Date, readAt: number) => {
  const record = { dynamodb: { ApproximateCreationDateTime: named } };
  stampToTheSecond(record, readAt);
  return record.dynamodb.ApproximateCreationDateTime.getTime();
};

describe('a local stream record time', () => {
  it("is the read's second when DynamoDB Local names only the minute", () => {
    expect(stamped(new Date(MINUTE), MINUTE + 12_345)).toBe(MINUTE + 12_000);
  });
  it('stays inside the minute named (a record read long after its write)', () => {
    expect(stamped(new Date(MINUTE), MINUTE + 10 * 60_000)).toBe(MINUTE + 59_000);
    expect(stamped(new Date(MINUTE), MINUTE - 5_000)).toBe(MINUTE);
  });
  it('is left as named when it already has seconds', () => {
    expect(stamped(new Date(MINUTE + 7_000), MINUTE + 30_000)).toBe(MINUTE + 7_000);
  });
});
