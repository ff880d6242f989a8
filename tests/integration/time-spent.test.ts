/**
 * GET /api/reports/time-spent/ (issue 36): the followups' `time_spent` totalled by ticket, queue and
 * author over ranges of days, exact after followups are created, edited (time, author, date, moved
 * to another ticket) and deleted, tickets moved between queues and deleted, and unmoved by records
 * that come twice, late, or again after a failed batch. Its own runtime in-process with the stream
 * poller off: each test drains the stream, so it sees the consumer's work whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand, type DynamoDB } from '../../shared/aws/dynamodb';
import { ADMIN_ID, clientFor, unique, type Json } from './client';
import { startInProcessRuntime } from './in-process-runtime';
import { failNextTransaction } from './fault-injection';

let runtime: { url: string; stop(): Promise<void>; drainTableStream(): Promise<void> };
let api: ReturnType<typeof clientFor>;
let dynamo: DynamoDB;
let applyTableChanges: typeof import('../../shared/consumer/table-changes').applyTableChanges;
let keys: typeof import('../../shared/store/keys').keys;
const table = () => process.env.TABLE_NAME!;

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_STREAM_POLL_MS: '0' });
  api = clientFor(runtime.url);
  ({ dynamo } = await import('../../shared/aws/clients'));
  ({ applyTableChanges } = await import('../../shared/consumer/table-changes'));
  ({ keys } = await import('../../shared/store/keys'));
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

const today = () => new Date().toISOString().slice(0, 10);

async function created(path: string, json: Json): Promise<Json> {
  const reply = await api.call('POST', path, { json });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function followup(ticket: number, time_spent: string | null, user?: number): Promise<number> {
  const f = await created('/api/followups/', { ticket, title: 'Work', comment: 'done', time_spent });
  if (user !== undefined) await edit(f.id as number, { user });
  return f.id as number;
}

async function edit(id: number, json: Json): Promise<void> {
  const reply = await api.call('PATCH', `/api/followups/${id}/`, { json });
  expect(reply.status, reply.text).toBe(200);
}

/** The report's rows as `{ id: duration }` once the stream is applied, and its total. */
async function report(query: string): Promise<{ rows: Record<string, string>; total: string }> {
  await runtime.drainTableStream();
  const reply = await api.call('GET', `/api/reports/time-spent/?${query}`);
  expect(reply.status, reply.text).toBe(200);
  const by = reply.body.by as string;
  const rows = Object.fromEntries(
    (reply.body.results as Json[]).map((r) => [String(r[by]), r.time_spent as string]),
  ) as Record<string, string>;
  return { rows, total: reply.body.time_spent as string };
}

/** Moves a followup to another day, as an import would (the API keeps `date` read-only). */
async function redate(ticket: number, id: number, date: string): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: table(),
      Key: keys.followup(ticket, id),
      UpdateExpression: 'SET #date = :date',
      ExpressionAttributeNames: { '#date': 'date' },
      ExpressionAttributeValues: { ':date': date },
    }),
  );
}

describe('time spent', () => {
  it('totals by ticket, queue and user over ranges of days, after creates, edits, moves and deletes', async () => {
    const [qa, qb] = [
      await created('/api/queues/', { title: 'A', slug: unique('a') }),
      await created('/api/queues/', { title: 'B', slug: unique('b') }),
    ];
    const { username } = await api.createUser();
    const users = (await api.call('GET', '/api/users/?page_size=100')).body.results as Json[];
    const agent = users.find((u) => u.username === username)!;
    const [t1, t2] = [
      (await api.createTicket({ queue: qa.id })).body.id as number,
      (await api.createTicket({ queue: qb.id })).body.id as number,
    ];
    const f1 = await followup(t1, '01:00:00');
    const f2 = await followup(t1, '00:30:00');
    const f3 = await followup(t2, '1 00:00:00', agent.id as number);
    await followup(t2, null);

    expect(await report('')).toEqual({
      rows: { [t1]: '01:30:00', [t2]: '1 00:00:00' },
      total: '1 01:30:00',
    });
    expect((await report('by=user')).rows).toEqual({ [ADMIN_ID]: '01:30:00', [agent.id as number]: '1 00:00:00' });
    expect((await report(`by=queue&since=${today()}&until=${today()}`)).rows).toEqual({
      [qa.id as number]: '01:30:00',
      [qb.id as number]: '1 00:00:00',
    });

    // Edits of time and author, a delete; then a followup on another day.
    await edit(f1, { time_spent: '02:00:00.500000' });
    await edit(f3, { user: ADMIN_ID });
    expect((await api.call('DELETE', `/api/followups/${f2}/`)).status).toBe(204);
    expect(await report('by=user')).toEqual({ rows: { [ADMIN_ID]: '1 02:00:00.500000' }, total: '1 02:00:00.500000' });
    await redate(t1, f1, '2026-01-15T10:00:00.000000Z');
    expect((await report('by=ticket&since=2026-01-15&until=2026-01-15')).rows).toEqual({ [t1]: '02:00:00.500000' });
    expect((await report('by=ticket&until=2026-01-14')).rows).toEqual({});
    expect((await report(`by=ticket&since=2026-01-16`)).rows).toEqual({ [t2]: '1 00:00:00' });
    expect((await report('by=ticket')).rows).toEqual({ [t1]: '02:00:00.500000', [t2]: '1 00:00:00' });

    // A ticket moved to another queue takes its time with it (upstream's Queue.dedicated_time); a
    // followup moved to another ticket too.
    expect((await api.call('PATCH', `/api/tickets/${t1}/`, { json: { queue: qb.id } })).status).toBe(200);
    expect((await report('by=queue')).rows).toEqual({ [qb.id as number]: '1 02:00:00.500000' });
    await edit(f3, { ticket: t1 });
    expect((await report('by=ticket')).rows).toEqual({ [t1]: '1 02:00:00.500000' });
    expect((await api.call('PATCH', `/api/tickets/${t1}/`, { json: { queue: qa.id } })).status).toBe(200);
    expect((await report('by=queue&since=2026-01-15')).rows).toEqual({ [qa.id as number]: '1 02:00:00.500000' });

    // Records again, late and twice: nothing moves. Then a ticket deleted takes its time away.
    const settled = await report('by=ticket');
    const stored = (await dynamo.send(new GetCommand({ TableName: table(), Key: keys.followup(t1, f1) }))).Item!;
    const stale = { ...stored, time_spent: 60e6 };
    const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', image: Json, PK = String(stored.PK)) => ({
      eventName,
      keys: { PK, SK: String(stored.SK) },
      ...(eventName === 'REMOVE' ? { oldImage: image } : { newImage: image, oldImage: image }),
    });
    await applyTableChanges([
      record('INSERT', stale),
      record('MODIFY', stored),
      record('REMOVE', stale),
      record('REMOVE', { ...stale, ticket: t2 }, keys.ticketPartition(t2)),
      record('INSERT', stale),
    ]);
    expect(await report('by=ticket')).toEqual(settled);

    // A batch that fails part-way changes nothing, and fails no batch: its records wait on the failed consumer's
    // retry path (consumer/fan-out.ts); applied again at the next drain (the report's), it counts once.
    const f5 = await followup(t1, '00:10:00');
    const fault = failNextTransaction(dynamo);
    try {
      await runtime.drainTableStream();
    } finally {
      fault.stop();
    }
    expect(fault.failed()).toBe(true);
    expect((await report('by=ticket')).rows).toEqual({ [t1]: '1 02:10:00.500000' });
    await edit(f5, { time_spent: null });
    expect(await report('by=ticket')).toEqual(settled);

    expect((await api.call('DELETE', `/api/tickets/${t1}/`)).status).toBe(204);
    expect(await report('by=user')).toEqual({ rows: {}, total: '00:00:00' });
    expect(await report('by=queue')).toEqual({ rows: {}, total: '00:00:00' });
  });

  it.each([
    ['by=', { by: ['"" is not a valid choice.'] }],
    ['by=agent', { by: ['"agent" is not a valid choice.'] }],
    [
      'by=user&since=2026-02-30&until=yesterday',
      {
        since: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
        until: ['Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'],
      },
    ],
    ['by=queue&since=2026-02-02&until=2026-02-01', { until: ['Must not be before `since`.'] }],
  ])('?%s answers 400 with the field errors', async (query, errors) => {
    const reply = await api.call('GET', `/api/reports/time-spent/?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(errors);
  });

  it('answers 403 to a user who is not staff', async () => {
    const user = await api.createUser();
    expect((await api.call('GET', '/api/reports/time-spent/?by=ticket', { auth: user.auth })).status).toBe(403);
  });
});
