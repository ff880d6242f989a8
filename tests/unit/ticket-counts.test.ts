import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DELETED_VERSION,
  chunkMoves,
  countChanges,
  legacyViewCount,
  subBlockCounts,
  totalOf,
  transactionActions,
  viewCountId,
  type Counted,
  type TicketRecord,
} from '../../shared/domain/ticket-counts';

const state = (status: number, queue = 1, assigned?: string) => ({
  status,
  queue,
  ...(assigned === undefined ? {} : { assigned, priority: 3 }),
});

/** Applies changes to a plain model of the counts, as the store's transaction does. */
function apply(
  model: { counted: Map<number, Counted>; totals: Map<string, number>; views: Map<string, number> },
  records: TicketRecord[],
) {
  const changes = countChanges(records, model.counted);
  for (const { ticket, next } of changes.counted) model.counted.set(ticket, next);
  for (const [key, delta] of changes.totals) model.totals.set(key, (model.totals.get(key) ?? 0) + delta);
  for (const [id, { deltas }] of changes.views)
    for (const [key, delta] of deltas) model.views.set(`${id}/${key}`, (model.views.get(`${id}/${key}`) ?? 0) + delta);
  return changes;
}

describe('ticket counts from stream records', () => {
  it('count a new ticket once by status and queue, in its run of 25 ids', () => {
    const changes = countChanges([{ ticket: 1026, version: 1, state: state(1, 7) }], new Map());
    expect(Object.fromEntries(changes.totals)).toEqual({ s1: 1, q7: 1 });
    expect([...changes.blocks]).toEqual([[1, new Map([['c1_1', 1]])]]);
    expect(changes.counted).toEqual([{ ticket: 1026, next: { status: 1, queue: 7, version: 1 }, previous: undefined }]);
  });

  it('move a ticket between statuses and queues, and uncount it once deleted', () => {
    const counted = new Map<number, Counted>([[5, { status: 1, queue: 1, version: 3 }]]);
    const moved = countChanges([{ ticket: 5, version: 4, state: state(3, 2) }], counted);
    expect(Object.fromEntries(moved.totals)).toEqual({ s1: -1, q1: -1, s3: 1, q2: 1 });
    const deleted = countChanges([{ ticket: 5, version: 0 }], counted);
    expect(Object.fromEntries(deleted.totals)).toEqual({ s1: -1, q1: -1 });
    expect(deleted.counted[0]!.next.version).toBe(DELETED_VERSION);
  });

  it('ignore a duplicate, a late record, and anything about a deleted ticket', () => {
    const counted = new Map<number, Counted>([
      [1, { status: 2, queue: 1, version: 2 }],
      [2, { status: 0, queue: 0, version: DELETED_VERSION }],
    ]);
    const changes = countChanges(
      [
        { ticket: 1, version: 2, state: state(2) },
        { ticket: 1, version: 1, state: state(1) },
        { ticket: 2, version: 9, state: state(1) },
        { ticket: 2, version: 0 },
      ],
      counted,
    );
    expect(changes).toEqual({ counted: [], totals: new Map(), blocks: new Map(), views: new Map() });
  });

  it('take only the latest record of a ticket within a batch (a deletion being the latest)', () => {
    const changes = countChanges(
      [
        { ticket: 9, version: 1, state: state(1) },
        { ticket: 9, version: 2, state: state(4) },
        { ticket: 8, version: 1, state: state(1) },
        { ticket: 8, version: 0 },
      ],
      new Map(),
    );
    expect(Object.fromEntries(changes.totals)).toEqual({ s4: 1, q1: 1 });
  });

  it('count each write that reserved in a queue once, every one of a batch, not only the latest', () => {
    const created = { ticket: 3, version: 1, state: state(1, 7), reserved: true };
    const moved = { ticket: 3, version: 2, state: state(1, 8), reserved: true };
    const movedBack = { ticket: 3, version: 3, state: state(1, 7), reserved: true };
    const patched = { ticket: 3, version: 4, state: state(2, 7) };
    const batch = countChanges([created, moved, created, movedBack, patched], new Map());
    expect(Object.fromEntries(batch.totals)).toEqual({ s2: 1, q7: 1, arr7: 2, arr8: 1 });
    // Counted up to version 2 already: only the later move is new.
    const later = countChanges([moved, movedBack, patched], new Map([[3, { status: 1, queue: 8, version: 2 }]]));
    expect(Object.fromEntries(later.totals)).toEqual({ s1: -1, q8: -1, s2: 1, q7: 1, arr7: 1 });
    // A create deleted within the batch still arrived.
    expect(Object.fromEntries(countChanges([created, { ticket: 3, version: 0 }], new Map()).totals)).toEqual({
      arr7: 1,
    });
  });

  it('end exact whatever the order, repetition and batching of the records (property)', () => {
    // Each ticket's history: created, some changes of status or queue, maybe deleted; versions
    // increase; the create and each move reserved in their queue.
    const history = fc.record({
      steps: fc.array(
        fc.record({
          status: fc.integer({ min: 1, max: 5 }),
          queue: fc.integer({ min: 1, max: 3 }),
          assigned: fc.constantFrom('none', '1', '2'),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      deleted: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(history, { minLength: 1, maxLength: 8 }),
        fc.infiniteStream(fc.nat()),
        (histories, choices) => {
          const records: TicketRecord[] = histories.flatMap((h, ticket) => [
            ...h.steps.map(({ status, queue, assigned }, i) => ({
              ticket,
              version: i + 1,
              state: state(status, queue, assigned),
              ...(i === 0 || h.steps[i - 1]!.queue !== queue ? { reserved: true } : {}),
            })),
            ...(h.deleted ? [{ ticket, version: 0 }] : []),
          ]);
          // Per ticket in order (as a stream shard delivers them), interleaved, each possibly twice.
          const queues = histories.map((_, ticket) => records.filter((r) => r.ticket === ticket));
          const delivered: TicketRecord[] = [];
          const picks = choices[Symbol.iterator]();
          while (queues.some((q) => q.length)) {
            const open = queues.filter((q) => q.length);
            const q = open[picks.next().value % open.length]!;
            const record = q.shift()!;
            delivered.push(record);
            if (picks.next().value % 3 === 0) delivered.push(record);
          }
          const model = {
            counted: new Map<number, Counted>(),
            totals: new Map<string, number>(),
            views: new Map<string, number>(),
          };
          for (let i = 0; i < delivered.length;) {
            const size = 1 + (picks.next().value % 4);
            apply(model, delivered.slice(i, i + size));
            i += size;
          }
          apply(model, delivered); // a whole replay changes nothing
          const expected = new Map<string, number>();
          const bump = (key: string) => expected.set(key, (expected.get(key) ?? 0) + 1);
          const expectedViews = new Map<string, number>();
          for (const h of histories) {
            if (h.deleted) continue;
            const { status, queue, assigned } = h.steps.at(-1)!;
            bump(`s${status}`);
            bump(`q${queue}`);
            for (const id of [`sq#${queue}#`, `sa##${assigned}`, `sqa#${queue}#${assigned}`])
              expectedViews.set(`${id}/s${status}`, (expectedViews.get(`${id}/s${status}`) ?? 0) + 1);
          }
          for (const r of records) if (r.reserved) bump(`arr${r.state!.queue}`);
          for (let s = 1; s <= 5; s++) expect(model.totals.get(`s${s}`) ?? 0).toBe(expected.get(`s${s}`) ?? 0);
          for (let q = 1; q <= 3; q++) {
            expect(model.totals.get(`q${q}`) ?? 0).toBe(expected.get(`q${q}`) ?? 0);
            expect(model.totals.get(`arr${q}`) ?? 0).toBe(expected.get(`arr${q}`) ?? 0);
          }
          expect(new Map([...model.views].filter(([, n]) => n !== 0))).toEqual(expectedViews);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the agent views' count items", () => {
  it(
    'count an assigned ticket in its status × queue, status × assignee and status × queue × assignee items, not ' +
      'in the totals',
    () => {
      const changes = countChanges([{ ticket: 7, version: 1, state: state(2, 4, '9') }], new Map());
      expect(Object.fromEntries(changes.totals)).toEqual({ s2: 1, q4: 1, a9: 1, p3: 1 });
      expect(
        new Map([...changes.views].map(([id, { item, deltas }]) => [id, [item, Object.fromEntries(deltas)]])),
      ).toEqual(
        new Map([
          ['sq#4#', [{ view: 'sq', queue: '4' }, { s2: 1 }]],
          ['sa##9', [{ view: 'sa', assignee: '9' }, { s2: 1 }]],
          ['sqa#4#9', [{ view: 'sqa', queue: '4', assignee: '9' }, { s2: 1 }]],
        ]),
      );
      // Reassigned within its queue and status: only the assignee's items change.
      const moved = countChanges(
        [{ ticket: 7, version: 2, state: state(2, 4, 'none') }],
        new Map([[7, { ...state(2, 4, '9'), version: 1 }]]),
      );
      expect(new Map([...moved.views].map(([id, { deltas }]) => [id, Object.fromEntries(deltas)]))).toEqual(
        new Map([
          ['sa##9', { s2: -1 }],
          ['sqa#4#9', { s2: -1 }],
          ['sa##none', { s2: 1 }],
          ['sqa#4#none', { s2: 1 }],
        ]),
      );
    },
  );

  it('cut a batch so that every transaction, view count items included, stays within the action limit', () => {
    // 300 tickets, each in a queue × assignee combination of its own, moving from another one.
    const moves = Array.from({ length: 300 }, (_, i) => ({
      ticket: i + 1,
      previous: state(1, i, String(i)),
      next: state(2, i + 1000, String(i + 1000)),
    }));
    const chunks = chunkMoves(moves, 100);
    expect(chunks.flat().sort((a, b) => a - b)).toEqual(moves.map((m) => m.ticket));
    const counted = new Map<number, Counted>(moves.map((m) => [m.ticket, { ...m.previous, version: 1 }]));
    for (const chunk of chunks) {
      const changes = countChanges(
        chunk.map((ticket) => ({ ticket, version: 2, state: moves[ticket - 1]!.next })),
        counted,
      );
      expect(transactionActions(changes)).toBeLessThanOrEqual(100);
    }
    // Each ticket touches 6 view items of its own: 14 tickets a transaction (14 + 1 block + 84 + 1 totals = 100; 15
    // would be 107).
    expect(chunks[0]!.length).toBe(14);
    // Tickets sharing their view items: as many as the limit allows (beside 1 block, 3 view items, the totals).
    const shared = Array.from({ length: 300 }, (_, i) => ({ ticket: i + 1, next: state(1, 1, '1') }));
    expect(chunkMoves(shared, 100)[0]!.length).toBe(100 - 1 - 3 - 1);
  });

  it('name the view counts an earlier version kept on the totals items, and nothing else', () => {
    expect(legacyViewCount('sqa3_2_none')).toEqual({ item: { view: 'sqa', queue: '2', assignee: 'none' }, status: 3 });
    expect(legacyViewCount('sq1_12')).toEqual({ item: { view: 'sq', queue: '12' }, status: 1 });
    expect(legacyViewCount('sa5_40')).toEqual({ item: { view: 'sa', assignee: '40' }, status: 5 });
    for (const other of ['s1', 'q3', 'a4', 'anone', 'p2', 'arr3', 'SK', 'sq1_2_3', 'sa1'])
      expect(legacyViewCount(other)).toBeUndefined();
    expect(viewCountId(legacyViewCount('sqa3_2_none')!.item)).toBe('sqa#2#none');
  });
});

describe('reading the counts', () => {
  it('sum the statuses asked for', () => {
    const totals = { SK: '!TOTALS', s1: 3, s2: 1, s4: 5, q1: 9 };
    expect(totalOf(totals)).toBe(9);
    expect(totalOf(totals, new Set([1, 2]))).toBe(4);
    expect(totalOf(undefined)).toBe(0);
  });

  it('list the non-empty runs of a block in id order', () => {
    expect(subBlockCounts(2, { SK: 'BLOCK#2', c3_1: 2, c3_4: 1, c0_2: 0, c1_4: 5 }, new Set([1, 4]))).toEqual([
      { start: 2025, count: 5 },
      { start: 2075, count: 3 },
    ]);
  });
});
