/**
 * Time spent's read half (the write half: consumer/time-spent.ts): the day cells of one view over a
 * range of days, one Query of its partition (pages of it), so a range reads one item per day per
 * value with time that day, whatever the number of followups.
 */
import type { TimeSpentCell, TimeSpentDimension } from '../domain/time-spent';
import { keys, KEY } from './keys';
import { queryAll } from './query';

/** Sorts after every real day: an unbounded end. */
const LAST_DAY = '9999-12-31';
const FIRST_DAY = '0000-01-01';

export async function readTimeSpentCells(
  by: TimeSpentDimension,
  since: string | undefined,
  until: string | undefined,
): Promise<TimeSpentCell[]> {
  const items = await queryAll({
    KeyConditionExpression: `${KEY.partition} = :pk AND ${KEY.sort} BETWEEN :lo AND :hi`,
    ExpressionAttributeValues: {
      ':pk': keys.timeSpentPartition(by),
      ':lo': keys.timeSpentDayFirst(since ?? FIRST_DAY),
      ':hi': keys.timeSpentDayLast(until ?? LAST_DAY),
    },
  });
  return items.map((i) => ({
    queue: typeof i.queue === 'number' ? i.queue : null,
    value: typeof i.value === 'number' ? i.value : null,
    micros: Number(i.micros ?? 0),
  }));
}
