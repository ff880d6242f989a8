/**
 * The table stream's one reader (shared/consumer/fan-out.ts): each consumer gets only the records its
 * filters pass, a consumer that throws stops none of the others and has its records put on its own
 * retry path, and only a retry path that fails fails the batch. Faults are injected by consumers
 * made to throw.
 */
import { describe, expect, it } from 'vitest';
import { fanOut, RecordsFailedAgain, retryMessages, retryRecords, type RetrySink } from '../../shared/consumer/fan-out';
import type { FilteredConsumer, TableChange } from '../../shared/consumer/changes';
import type { StreamRecordLike } from '../../shared/consumer/stream-records';
import { matchesAny, mergedPatterns } from '../../shared/domain/stream-filters';
import { TICKET_CHANGE_FILTERS, SEARCH_FILTERS } from '../../shared/consumer/stream-filters';
import { MAIL_FILTERS } from '../../shared/mail/queue-mail';
import { WEBHOOK_FILTERS } from '../../shared/webhooks/stream-dispatch';

const record = (seq: number, eventName: string, PK: string, SK: string, type?: string): StreamRecordLike => ({
  eventID: `e${seq}`,
  eventName,
  dynamodb: {
    Keys: { PK: { S: PK }, SK: { S: SK } },
    NewImage: { PK: { S: PK }, SK: { S: SK }, ...(type ? { type: { S: type } } : {}) },
    SequenceNumber: String(seq),
    ApproximateCreationDateTime: 1_700_000_000,
  },
});

const ticket = record(1, 'INSERT', 'TICKET#1', 'TICKET', 'ticket');
const followup = record(2, 'INSERT', 'TICKET#1', 'FOLLOWUP#5', 'followup');
const outbox = record(3, 'INSERT', 'OUTBOX', 'EVENT#x', 'webhook-event');
const batch = [ticket, followup, outbox];

/** A consumer that records the sequence numbers it was given, and throws when told to. */
function consumer(name: string, filters: FilteredConsumer['filters'], fail?: Error) {
  const seen: string[][] = [];
  const c: FilteredConsumer = {
    name,
    filters,
    apply(changes: TableChange[]) {
      seen.push(changes.map((ch) => ch.stream!.sequence));
      return fail ? Promise.reject(fail) : Promise.resolve();
    },
  };
  return { c, seen };
}

function sink(fail?: Error) {
  const sent: { consumer: string; sequences: string[] }[] = [];
  const s: RetrySink = {
    retry(name, records) {
      sent.push({ consumer: name, sequences: records.map((r) => r.dynamodb!.SequenceNumber!) });
      return fail ? Promise.reject(fail) : Promise.resolve();
    },
  };
  return { s, sent };
}

describe('fan-out', () => {
  it('gives each consumer only its records, in stream order', async () => {
    const counts = consumer('ticket state', TICKET_CHANGE_FILTERS);
    const mail = consumer('mail', MAIL_FILTERS);
    const hooks = consumer('webhook dispatch', WEBHOOK_FILTERS);
    const { s, sent } = sink();
    const result = await fanOut(batch, [counts.c, mail.c, hooks.c], s);
    expect(counts.seen).toEqual([['1', '2']]);
    expect(mail.seen).toEqual([['1', '2']]);
    expect(hooks.seen).toEqual([['3']]);
    expect(result).toEqual({ applied: ['ticket state', 'mail', 'webhook dispatch'], retried: [] });
    expect(sent).toEqual([]);
  });

  it('a consumer that throws stops none of the others; its records, and only its, go to its retry path', async () => {
    const counts = consumer('ticket state', TICKET_CHANGE_FILTERS);
    const mail = consumer('mail', MAIL_FILTERS, new Error('SES throttled'));
    const hooks = consumer('webhook dispatch', WEBHOOK_FILTERS);
    const { s, sent } = sink();
    const result = await fanOut(batch, [counts.c, mail.c, hooks.c], s);
    expect(counts.seen).toEqual([['1', '2']]);
    expect(hooks.seen).toEqual([['3']]);
    expect(result.retried).toEqual(['mail']);
    expect(sent).toEqual([{ consumer: 'mail', sequences: ['1', '2'] }]);

    // The retry path runs the same consumer's code on those records.
    const again = consumer('mail', MAIL_FILTERS);
    const [body] = retryMessages('mail', [ticket, followup], 1_000_000);
    await retryRecords(JSON.parse(body!), [counts.c, again.c]);
    expect(again.seen).toEqual([['1', '2']]);
    expect(counts.seen).toHaveLength(1);
  });

  it('fails the batch only when a retry path fails, after every consumer finished', async () => {
    let finished = false;
    const slow: FilteredConsumer = {
      name: 'ticket state',
      filters: TICKET_CHANGE_FILTERS,
      apply: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            finished = true;
            resolve();
          }, 20),
        ),
    };
    const mail = consumer('mail', MAIL_FILTERS, new Error('SES throttled'));
    const { s } = sink(new Error('SQS down'));
    await expect(fanOut(batch, [slow, mail.c], s)).rejects.toThrow('SQS down');
    expect(finished).toBe(true);
  });

  it('a retry that fails again is applied record by record: a poison record holds back no other', async () => {
    const seen: string[][] = [];
    const picky: FilteredConsumer = {
      name: 'change feed',
      filters: TICKET_CHANGE_FILTERS,
      apply(changes: TableChange[]) {
        seen.push(changes.map((ch) => ch.stream!.sequence));
        return changes.some((ch) => ch.stream!.sequence === '2')
          ? Promise.reject(new Error('poison'))
          : Promise.resolve();
      },
    };
    const third = record(4, 'INSERT', 'TICKET#2', 'TICKET', 'ticket');
    const failure = await retryRecords({ consumer: 'change feed', records: [ticket, followup, third] }, [picky]).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(RecordsFailedAgain);
    expect((failure as RecordsFailedAgain).records).toEqual([followup]);
    expect((failure as RecordsFailedAgain).message).toMatch(/1 record\(s\) failed again: poison/);
    expect(seen).toEqual([['1', '2', '4'], ['1'], ['2'], ['4']]);
    // A lone record's failure is its own error, as before.
    await expect(retryRecords({ consumer: 'change feed', records: [followup] }, [picky])).rejects.toThrow('poison');
  });

  it('a retry message for a consumer that is not here fails (the queue keeps it)', async () => {
    await expect(retryRecords({ consumer: 'nobody', records: [ticket] }, [])).rejects.toThrow(/no stream consumer/);
  });

  it("splits a consumer's records into messages that fit, each record whole", () => {
    const records = Array.from({ length: 10 }, (_, i) => record(i, 'INSERT', 'TICKET#1', 'TICKET', 'ticket'));
    const one = Buffer.byteLength(JSON.stringify(records[0]));
    const messages = retryMessages('mail', records, one * 3 + 100);
    expect(messages.length).toBeGreaterThan(3);
    for (const m of messages) expect(Buffer.byteLength(m)).toBeLessThanOrEqual(one * 3 + 100);
    expect(messages.flatMap((m) => (JSON.parse(m) as { records: unknown[] }).records)).toEqual(records);
  });
});

describe('filters', () => {
  it('match as Lambda does: values, prefixes, nested paths; a missing field matches nothing', () => {
    const bounce = {
      eventName: 'MODIFY',
      dynamodb: { Keys: { PK: { S: 'MAIL#3' }, SK: { S: 'x' } }, NewImage: { status: { S: 'bounced' } } },
    };
    expect(matchesAny(TICKET_CHANGE_FILTERS, bounce)).toBe(true);
    expect(matchesAny(TICKET_CHANGE_FILTERS, { ...bounce, eventName: 'INSERT' })).toBe(false);
    expect(
      matchesAny(TICKET_CHANGE_FILTERS, { eventName: 'MODIFY', dynamodb: { Keys: { PK: { S: 'MAIL#3' } } } }),
    ).toBe(false);
    expect(matchesAny(TICKET_CHANGE_FILTERS, outbox)).toBe(false);
    expect(matchesAny(SEARCH_FILTERS, record(9, 'MODIFY', 'CUSTOM_FIELDS', 'FIELD#a'))).toBe(true);
    expect(matchesAny(TICKET_CHANGE_FILTERS, record(9, 'MODIFY', 'CUSTOM_FIELDS', 'FIELD#a'))).toBe(false);
    expect(matchesAny(SEARCH_FILTERS, record(9, 'MODIFY', 'QUEUES', 'QUEUE#000000000002'))).toBe(true);
    expect(matchesAny(TICKET_CHANGE_FILTERS, record(9, 'MODIFY', 'QUEUES', 'QUEUE#000000000002'))).toBe(false);
  });

  it("the one reader's filter passes every consumer's records in 4 patterns, 5 with search (Lambda's quota)", () => {
    const all = [...TICKET_CHANGE_FILTERS, ...MAIL_FILTERS, ...WEBHOOK_FILTERS];
    const merged = mergedPatterns(all);
    expect(merged).toHaveLength(4);
    expect(mergedPatterns([...SEARCH_FILTERS, ...all])).toHaveLength(5);
    expect(merged).toContainEqual({
      eventName: ['INSERT'],
      dynamodb: {
        NewImage: { type: { S: ['followup', 'attachment', 'merged', 'escalation', 'webhook-event', 'change-event'] } },
      },
    });
    const samples = [
      ticket,
      followup,
      outbox,
      record(4, 'INSERT', 'TICKET#1', 'ESC#1', 'escalation'),
      record(5, 'REMOVE', 'TICKET#1', 'ATT#1', 'attachment'),
      record(8, 'MODIFY', 'TICKET#1', 'ATT#2', 'attachment'),
      record(9, 'INSERT', 'TICKET#2', 'MERGED#1', 'merged'),
      record(6, 'INSERT', 'QUEUES', 'Q#1', 'queue'),
      record(7, 'MODIFY', 'USERS', 'U#1', 'user'),
    ].map((r) =>
      r.eventName === 'REMOVE' ? { ...r, dynamodb: { ...r.dynamodb, OldImage: r.dynamodb!.NewImage } } : r,
    );
    for (const r of samples) expect(matchesAny(merged, r), JSON.stringify(r)).toBe(matchesAny(all, r));
  });
});
