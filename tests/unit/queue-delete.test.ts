import { describe, expect, it } from 'vitest';
import { RESERVATION_GIVEN_UP_MS, queueDeleteDecision } from '../../shared/domain/queue-delete';

const now = Date.UTC(2030, 0, 1);
const state = (s: Partial<Parameters<typeof queueDeleteDecision>[0]>) =>
  queueDeleteDecision({ reserved: 0, arrived: 0, live: 0, now, ...s });

describe('whether a queue may be deleted', () => {
  it('a queue with live tickets is in use, settled or not', () => {
    expect(state({ live: 1, reserved: 3, arrived: 3, lastReserved: now - 10 })).toBe('in-use');
    expect(state({ live: 2, reserved: 5, arrived: 3, lastReserved: now - 10 })).toBe('in-use');
  });

  it(
    "an empty queue whose reservations are all counted is deleted; one never reserved in (an earlier version's) " +
      'too',
    () => {
      expect(state({ reserved: 4, arrived: 4, lastReserved: now - 10 })).toBe('delete');
      expect(state({})).toBe('delete');
    },
  );

  it('an empty queue with writes reserved and not yet counted waits for the counts', () => {
    expect(state({ reserved: 5, arrived: 4, lastReserved: now - 10 })).toBe('unsettled');
    expect(state({ reserved: 5, arrived: 4, lastReserved: now - RESERVATION_GIVEN_UP_MS })).toBe('unsettled');
  });

  it(
    'reservations left uncounted longer than any writer runs are taken as given up (a writer that died): no 409 ' +
      'for ever',
    () => {
      expect(state({ reserved: 5, arrived: 4, lastReserved: now - RESERVATION_GIVEN_UP_MS - 1 })).toBe('delete');
      expect(state({ reserved: 5, arrived: 4 })).toBe('delete');
      expect(state({ live: 1, reserved: 5, arrived: 4, lastReserved: now - RESERVATION_GIVEN_UP_MS - 1 })).toBe(
        'in-use',
      );
    },
  );

  it(
    'more arrivals than reservations (one given back by a write that happened after all) waits until the last ' +
      'reservation is old',
    () => {
      expect(state({ reserved: 3, arrived: 4, lastReserved: now - 10 })).toBe('unsettled');
      expect(state({ reserved: 3, arrived: 4, lastReserved: now - RESERVATION_GIVEN_UP_MS - 1 })).toBe('delete');
    },
  );
});
