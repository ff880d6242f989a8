/**
 * Fault injection: every write operation, with each DynamoDB command and each S3 call it makes
 * failing in turn (a server error, a dropped connection, throttling), must answer a JSON 503 with
 * `Retry-After`, leave the stored state exactly as it was (the id counter aside: reserved ids are
 * never reused, gaps are harmless), leave no file without its record and no work running behind the
 * answer, and succeed exactly once when the same request is sent again without faults. A delete
 * whose records are gone when its file cleanup fails answers its success; the files it could not
 * delete stay named by a cleanup record, and the sweeper (run here by hand) removes them.
 *
 * This file runs its own runtime in-process (in-memory engines, a free port) so that it can reach
 * the store's clients; requests still go over HTTP. Nothing else writes to that runtime, so states
 * compare exactly. How faults are injected: fault-injection.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DynamoDB } from '../../shared/aws/dynamodb';
import { clientFor, multipart, unique, type CallOptions, type Json, type Reply } from './client';
import { LARGE_ANSWER_PREFIX } from '../../shared/store/keys';
import { startInProcessRuntime } from './in-process-runtime';
import { FAULT_KINDS, FaultInjector, type FaultKind, type Step } from './fault-injection';
import {
  diff,
  invariantViolations,
  listObjects,
  pendingCleanups,
  readState,
  removeTickets,
  signature,
  type State,
} from './table-state';

interface Request {
  method: string;
  path: string;
  options: CallOptions;
}

interface Operation {
  name: string;
  /** Makes what the request needs (fault-free) and returns the request. */
  setup: () => Request | Promise<Request>;
  /** The answer of a fault-free run. */
  ok: number;
  /** A delete: its records are committed before its files are removed. */
  deletesFiles?: boolean;
  /**
   * A write committed by one plain write of the ticket item, the step found here: what follows it
   * (the opening followup's ref) is mended by the stream consumer if it fails.
   */
  commitStep?: string;
}

let runtime: { url: string; stop(): Promise<void>; drainTableStream(): Promise<void> };
let api: ReturnType<typeof clientFor>;
let injector: FaultInjector;
let dynamo: DynamoDB;
let clearCredentialCache: () => void;
let forgetReferences: () => void;
let listCustomFields: (o?: { fresh?: boolean }) => Promise<unknown>;
let sweepFileCleanups: (now?: Date) => Promise<{ finished: number; unfinished: number }>;
let uploadGraceMs: number;
let errorLog: ReturnType<typeof vi.spyOn>;
const table = () => process.env.TABLE_NAME!;
const bucket = () => process.env.BUCKET_NAME!;
/** The stored state once the stream's consumer has applied every write (counts, repairs). */
const state = async () => {
  await runtime.drainTableStream();
  return readState(dynamo, table(), bucket());
};
const stats = { runs: 0, operations: 0, steps: 0 };

beforeAll(async () => {
  // No sweeps or stream polls behind the tests' back: their calls would be steps of whatever request
  // runs. The tests sweep, and drain the stream before reading the state, by hand.
  runtime = await startInProcessRuntime({ HELPDESK_STREAM_POLL_MS: '0' });
  api = clientFor(runtime.url);
  // The store's modules, as the handlers use them (imported once the runtime set the environment).
  ({ dynamo } = await import('../../shared/aws/clients'));
  ({ clearCredentialCache } = await import('../../shared/middleware/auth'));
  ({ forgetReferences } = await import('../../shared/store/references'));
  ({ listCustomFields } = await import('../../shared/store/custom-fields'));
  ({ sweepFileCleanups, UPLOAD_GRACE_MS: uploadGraceMs } = await import('../../shared/store/file-cleanups'));
  injector = new FaultInjector(dynamo, process.env.AWS_ENDPOINT_URL_S3!);
  await ok(api.call('POST', '/api/queues/', { json: { title: 'Second', slug: 'second' } }));
  await ok(
    api.call('POST', '/api/custom-fields/', {
      json: { name: 'note', label: 'Note', data_type: 'varchar', max_length: 100 },
    }),
  );
  errorLog = vi.spyOn(console, 'error').mockImplementation(() => undefined);
}, 120_000);

afterAll(async () => {
  errorLog?.mockRestore();
  await runtime?.stop();
  if (process.env.HELPDESK_TEST_FIGURES)
    console.log(
      `fault injection: ${injector?.injected} faults injected in ${stats.runs} runs ` +
        `over ${stats.steps} steps of ${stats.operations} operations`,
    );
});

let warmedAt = 0;
/**
 * Makes the read caches deterministic for the next run, so a run makes the same calls as the one
 * recorded: custom field definitions read now (cached 60 s), queues and users not known (kept 60 s),
 * the admin's credential verified at most 20 s ago (cached 60 s). Failing those reads is tested on
 * its own below.
 */
async function warm(): Promise<void> {
  await listCustomFields({ fresh: true });
  forgetReferences(); // each run reads the queues and users it names, as the recorded one did
  // Within 2 s of a verification the cached user record (read again when 5 s old) lasts the run.
  if (Date.now() - warmedAt > 2_000) {
    clearCredentialCache();
    expect((await api.call('GET', '/api/')).status).toBe(200);
    warmedAt = Date.now();
  }
}

const send = (r: Request) => api.call(r.method, r.path, r.options);
const json = (method: string, path: string, body: unknown): Request => ({ method, path, options: { json: body } });
function upload(
  method: string,
  path: string,
  fields: Record<string, string | number>,
  files: { field: string; name: string }[],
): Request {
  const { body, contentType } = multipart(
    fields,
    files.map((f, i) => ({ ...f, type: 'text/plain', content: `${f.name}: file ${i} of a fault test ${unique()}` })),
  );
  return { method, path, options: { body, contentType } };
}

async function ok(reply: Promise<Reply>, status = 201): Promise<Reply> {
  const r = await reply;
  if (r.status !== status) throw new Error(`fixture: ${r.status} ${r.text}`);
  return r;
}

const TICKET = {
  queue: 1,
  title: 'Fault test',
  description: 'Fault test ticket',
  submitter_email: 'faults@example.com',
};

/** A ticket with an attachment, and a followup with two files: three files in all. */
async function ticketWithFiles(): Promise<{ ticket: number; followup: number; attachments: number[] }> {
  const t = await ok(send(upload('POST', '/api/tickets/', TICKET, [{ field: 'attachment', name: 'ticket.txt' }])));
  const f = await ok(
    send(
      upload('POST', '/api/followups/', { ticket: t.body.id, title: 'Files', comment: 'Two files' }, [
        { field: 'attachments', name: 'one.txt' },
        { field: 'attachments', name: 'two.txt' },
      ]),
    ),
  );
  return {
    ticket: t.body.id,
    followup: f.body.id,
    attachments: f.body.followupattachment_set.map((a: { id: number }) => a.id),
  };
}

const plainTicket = async () => (await ok(api.createTicket({ title: 'Fault test target' }))).body.id as number;

const OPERATIONS: Operation[] = [
  {
    name: 'ticket create (JSON, with assignee and custom field; the ticket item is the commit)',
    ok: 201,
    commitStep: 'PutItem',
    setup: () => json('POST', '/api/tickets/', { ...TICKET, priority: 2, assigned_to: 1, custom_note: 'a note' }),
  },
  {
    name: 'ticket create (multipart, one file)',
    ok: 201,
    setup: () =>
      upload('POST', '/api/tickets/', { ...TICKET, custom_note: 'a note' }, [
        { field: 'attachment', name: 'screen.txt' },
      ]),
  },
  {
    name: 'ticket PUT (new queue and status, ticket with files)',
    ok: 200,
    setup: async () => {
      const { ticket } = await ticketWithFiles();
      return json('PUT', `/api/tickets/${ticket}/`, {
        ...TICKET,
        queue: 2,
        status: 3,
        resolution: 'Fixed',
        assigned_to: 1,
      });
    },
  },
  {
    name: 'ticket PATCH (merge, status, on hold; ticket with files)',
    ok: 200,
    setup: async () => {
      const [{ ticket }, target] = [await ticketWithFiles(), await plainTicket()];
      return json('PATCH', `/api/tickets/${ticket}/`, { merged_to: target, status: 5, on_hold: true });
    },
  },
  {
    name: 'ticket DELETE (with files, and a merged ticket with a file)',
    ok: 204,
    deletesFiles: true,
    setup: async () => {
      const { ticket } = await ticketWithFiles();
      const merged = await ok(
        send(upload('POST', '/api/tickets/', TICKET, [{ field: 'attachment', name: 'merged.txt' }])),
      );
      await ok(api.call('PATCH', `/api/tickets/${merged.body.id}/`, { json: { merged_to: ticket } }), 200);
      return { method: 'DELETE', path: `/api/tickets/${ticket}/`, options: {} };
    },
  },
  {
    name: 'ticket DELETE (alone, no files: the ticket item is the commit)',
    ok: 204,
    commitStep: 'DeleteItem',
    setup: async () => ({ method: 'DELETE', path: `/api/tickets/${await plainTicket()}/`, options: {} }),
  },
  {
    name: 'followup create (three files, resolves the ticket)',
    ok: 201,
    setup: async () => {
      const { ticket } = await ticketWithFiles();
      return upload('POST', '/api/followups/', { ticket, title: 'Done', comment: 'Resolved it', new_status: 3 }, [
        { field: 'attachments', name: 'a.txt' },
        { field: 'attachments', name: 'b.txt' },
        { field: 'attachments', name: 'c.txt' },
      ]);
    },
  },
  {
    name: 'followup PUT (moves it and its files to another ticket)',
    ok: 200,
    setup: async () => {
      const [{ followup }, target] = [await ticketWithFiles(), await plainTicket()];
      return json('PUT', `/api/followups/${followup}/`, { ticket: target, title: 'Moved', comment: 'Elsewhere' });
    },
  },
  {
    name: 'followup PATCH',
    ok: 200,
    setup: async () =>
      json('PATCH', `/api/followups/${(await ticketWithFiles()).followup}/`, { title: 'Renamed', public: true }),
  },
  {
    name: 'followup DELETE (two files)',
    ok: 204,
    deletesFiles: true,
    setup: async () => ({
      method: 'DELETE',
      path: `/api/followups/${(await ticketWithFiles()).followup}/`,
      options: {},
    }),
  },
  {
    name: 'attachment create',
    ok: 201,
    setup: async () =>
      upload('POST', '/api/followups-attachments/', { followup: (await ticketWithFiles()).followup }, [
        { field: 'file', name: 'more.txt' },
      ]),
  },
  {
    name: 'attachment DELETE',
    ok: 204,
    deletesFiles: true,
    setup: async () => ({
      method: 'DELETE',
      path: `/api/followups-attachments/${(await ticketWithFiles()).attachments[0]}/`,
      options: {},
    }),
  },
  {
    name: 'user create',
    ok: 201,
    setup: () => {
      const username = unique('fault');
      return json('POST', '/api/users/', {
        first_name: 'F',
        last_name: 'T',
        username,
        email: `${username}@example.com`,
        password: 'a-long-password',
      });
    },
  },
  {
    name: 'queue create',
    ok: 201,
    setup: () => json('POST', '/api/queues/', { title: 'Faults', slug: unique('q') }),
  },
  {
    name: 'queue PATCH (new slug)',
    ok: 200,
    setup: async () => {
      const q = await ok(api.call('POST', '/api/queues/', { json: { title: 'Faults', slug: unique('q') } }));
      return json('PATCH', `/api/queues/${q.body.id}/`, { title: 'Renamed', slug: unique('q') });
    },
  },
  {
    name: 'queue DELETE',
    ok: 204,
    setup: async () => {
      const q = await ok(api.call('POST', '/api/queues/', { json: { title: 'Faults', slug: unique('q') } }));
      return { method: 'DELETE', path: `/api/queues/${q.body.id}/`, options: {} };
    },
  },
  {
    name: 'custom field create',
    ok: 201,
    setup: () => json('POST', '/api/custom-fields/', { name: unique('f'), label: 'Fault', data_type: 'integer' }),
  },
  {
    name: 'custom field PATCH',
    ok: 200,
    setup: async () => {
      const f = await ok(
        api.call('POST', '/api/custom-fields/', { json: { name: unique('f'), label: 'Fault', data_type: 'integer' } }),
      );
      return json('PATCH', `/api/custom-fields/${f.body.name}/`, { label: 'Renamed', ordering: 3 });
    },
  },
  {
    name: 'custom field DELETE',
    ok: 204,
    setup: async () => {
      const f = await ok(
        api.call('POST', '/api/custom-fields/', { json: { name: unique('f'), label: 'Fault', data_type: 'integer' } }),
      );
      return { method: 'DELETE', path: `/api/custom-fields/${f.body.name}/`, options: {} };
    },
  },
];

/** The state apart from login attempt counts: an attempt is counted before its password check, and given back. */
function withoutLoginAttempts(s: State): State {
  return { items: new Map([...s.items].filter(([k]) => !k.startsWith('LOGIN#'))), objects: s.objects };
}

/**
 * The state apart from the id counter (ids reserved by a failed request stay used) and the time of
 * the queues' last reservation; and, but after a throttle (a refusal: the write gives its
 * reservation back), their reservations: a write into a queue that cannot tell whether it happened
 * keeps its reservation, which the queue's delete gives up after a while (docs/data-model.md,
 * "Deleting a queue").
 */
function withoutCounter(s: State, kind?: FaultKind): State {
  const bookkeeping = kind === 'throttle' ? ['last_reserved'] : ['last_reserved', 'reserved'];
  const items = [...s.items]
    .filter(([k]) => k !== 'COUNTER|COUNTER')
    .map(([k, item]): [string, Record<string, unknown>] => [
      k,
      k.startsWith('QUEUES|QUEUE#')
        ? Object.fromEntries(Object.entries(item).filter(([a]) => !bookkeeping.includes(a)))
        : item,
    ]);
  return { items: new Map(items), objects: s.objects };
}

function expectWhole(s: State, context: string): void {
  expect(invariantViolations(s), context).toEqual([]);
}

function expectRetryable(reply: Reply, context: string): void {
  expect(reply.status, `${context}: ${reply.text}`).toBe(503);
  expect(reply.headers.get('retry-after'), context).toBe('1');
  expect(reply.headers.get('content-type'), context).toMatch(/^application\/json/);
  expect(reply.body, context).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
}

/**
 * DynamoDB writes: the store decides by the error's kind whether the write surely applied nothing
 * (transact.ts `refusedWhole`: a throttled write gives its queue reservation back, one that may have
 * been applied keeps it, which withoutCounter checks), and a throttled TransactWriteItems comes as a
 * TransactionCanceled with a ThrottlingError reason rather than a throttling exception.
 */
const KIND_SENSITIVE = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems']);
/** Each service's failures reach the error middleware as these, in turn. */
const ROTATION: FaultKind[] = ['throttle', 'server', 'network'];

/**
 * The ways each step fails. A DynamoDB write (KIND_SENSITIVE) fails twice: throttled, and with a
 * server error or a dropped connection in turn (both may have been applied, and take the same store
 * paths; the error middleware tells them apart). A read or an S3 call fails once, the kinds taken in
 * turn over the operation's reads and S3 calls: a failed read applied nothing, and the store handles
 * a failed upload or file delete the same way whatever its kind (file-cleanups.ts); over the file the
 * turn makes each kind reach the error middleware from each service. FAULT_KINDS=all fails each step
 * in all three ways (the matrix before the cut: 231 runs; both kinds at every step: 154; this: 115).
 */
function kindsOf(steps: Step[]): FaultKind[][] {
  if (process.env.FAULT_KINDS === 'all') return steps.map(() => FAULT_KINDS);
  let turn = 0;
  return steps.map((step, at) =>
    step.service === 'dynamodb' && KIND_SENSITIVE.has(step.label)
      ? ['throttle', at % 2 === 0 ? 'server' : 'network']
      : [ROTATION[turn++ % ROTATION.length]!],
  );
}

/**
 * Records the operation's steps fault-free, then fails each step in turn. Before each run the
 * tickets and events of earlier runs are removed and the run's own fixture made, so that every table
 * read (three a run) scans one fixture: with all fixtures made first and the events kept, the reads
 * scanned 790,000 items (34 s of the file's 86 s); now 42,000.
 */
async function exercise(op: Operation): Promise<void> {
  await removeTickets(dynamo, table(), bucket(), await state());
  const request = await op.setup();
  const before = await state();
  // Right before the request, as in runWithFault: on a loaded machine the setup and the state read
  // can take seconds, and the cached user record would be read again in the recorded run only.
  await warm();
  const { result: reply, steps } = await injector.run(new Map(), () => send(request));
  expect(reply.status, reply.text).toBe(op.ok);
  const after = await state();
  expectWhole(after, `${op.name}, fault-free`);
  const expected = signature(before, after);
  stats.operations++;
  stats.steps += steps.length;

  let current = after;
  for (const { at, kind } of kindsOf(steps).flatMap((kinds, at) => kinds.map((kind) => ({ at, kind })))) {
    await removeTickets(dynamo, table(), bucket(), current);
    const fixture = await op.setup();
    current = await runWithFault(op, fixture, await state(), steps, at, kind, expected);
  }
}

/** One run with one fault; returns the state it leaves. */
async function runWithFault(
  op: Operation,
  request: Request,
  before: State,
  steps: Step[],
  at: number,
  kind: FaultKind,
  expected: string[],
): Promise<State> {
  const labels = steps.map((s) => s.label).join(', ');
  const context = `${op.name}: ${kind} fault at step ${at} (${steps[at]!.label}) of [${labels}]`;
  await warm();
  errorLog.mockClear();
  const injectedBefore = injector.injected;
  const { result: reply, steps: seen } = await injector.run(new Map([[at, kind]]), () => send(request));
  stats.runs++;
  expect(injector.injected, `${context}: the fault was not injected`).toBe(injectedBefore + 1);
  expect(seen.slice(0, at + 1), context).toEqual(steps.slice(0, at + 1));
  expect(injector.inFlight, `${context}: calls still running after the answer`).toBe(0);
  const after = await state();

  const commit = steps.map((s) => s.label).lastIndexOf('TransactWriteItems');
  if (op.deletesFiles && at > commit) {
    // The records are gone (committed) when the file cleanup fails: the delete happened, so the
    // answer is its success. What it could not finish stays named by a cleanup record (no orphan),
    // and the sweeper finishes it.
    expect(reply.status, `${context}: ${reply.text}`).toBe(op.ok);
    expectWhole(after, context);
    expect(pendingCleanups(after), context).toHaveLength(1);
    expect(await sweepFileCleanups(), context).toEqual({ finished: 1, unfinished: 0 });
    const swept = await state();
    expect(pendingCleanups(swept), context).toEqual([]);
    expect(signature(before, swept), context).toEqual(expected);
    expectWhole(swept, context);
    // Sending it again finds nothing left to delete.
    expect((await send(request)).status, context).toBe(404);
    return state();
  }

  if (op.commitStep && at > steps.findIndex((s) => s.label === op.commitStep)) {
    // Committed: the answer is its success, and the stream consumer wrote or removed the ref that
    // the failed step was to (the state is read once the stream is drained).
    expect(reply.status, `${context}: ${reply.text}`).toBe(op.ok);
    expectWhole(after, context);
    expect(signature(before, after), context).toEqual(expected);
    return after;
  }

  expectRetryable(reply, context);
  const d = diff(withoutCounter(before, kind), withoutCounter(after, kind));
  expect(d, `${context}: partial state`).toEqual({
    added: [],
    removed: [],
    changed: [],
    objectsAdded: [],
    objectsRemoved: [],
  });
  expectWhole(after, context);

  const retried = await send(request);
  expect(retried.status, `${context}, retried: ${retried.text}`).toBe(op.ok);
  const final = await state();
  expect(signature(before, final), `${context}, retried`).toEqual(expected);
  expectWhole(final, `${context}, retried`);
  return final;
}

describe('a failing dependency at any step of a write leaves nothing behind', { timeout: 600_000 }, () => {
  for (const op of OPERATIONS) {
    it(`${op.name}: every step, each kind of fault that takes a path of its own`, () => exercise(op));
  }
});

describe('faults outside the per-step matrix', { timeout: 120_000 }, () => {
  /** Records a fault-free create of a ticket with one file; returns the request and its commit step. */
  async function ticketWithFileSteps(name: string): Promise<{ request: Request; commit: number }> {
    await warm();
    const request = upload('POST', '/api/tickets/', TICKET, [{ field: 'attachment', name }]);
    const recorded = await injector.run(new Map(), () =>
      send(upload('POST', '/api/tickets/', TICKET, [{ field: 'attachment', name }])),
    );
    expect(recorded.result.status).toBe(201);
    const commit = recorded.steps.findIndex((s) => s.label === 'TransactWriteItems');
    // The cleanup record is written before the upload; then the reservation in the queue; the commit deletes the
    // record.
    expect(recorded.steps.slice(commit - 3, commit + 1).map((s) => s.label)).toEqual([
      'PutItem',
      'S3 PUT',
      'UpdateItem',
      'TransactWriteItems',
    ]);
    await warm();
    return { request, commit };
  }

  it(
    'when the commit fails and so does the cleanup of the upload (or the process dies there), the file stays ' +
      'recorded and the sweeper removes it',
    async () => {
      const { request, commit } = await ticketWithFileSteps('abandoned.txt');
      const before = await state();
      // The commit fails, then the claim of the cleanup record (the step after it) fails too.
      const { result: reply, steps } = await injector.run(
        new Map<number, FaultKind>([
          [commit, 'server'],
          [commit + 1, 'network'],
        ]),
        () => send(request),
      );
      expect(steps.slice(commit).map((s) => s.label)).toEqual(['TransactWriteItems', 'UpdateItem']);
      expectRetryable(reply, 'commit and cleanup failed');
      const after = await state();
      const d = diff(withoutCounter(before), withoutCounter(after));
      expect(d.removed.concat(d.changed)).toEqual([]);
      expect(d.added).toHaveLength(1);
      expect(d.objectsAdded).toHaveLength(1);
      expect(pendingCleanups(after).map((c) => c.object_keys)).toEqual([d.objectsAdded]);
      expectWhole(after, 'abandoned upload'); // recorded, so not an orphan

      // Not due yet (a slow request may still be committing); due once the grace period is over.
      expect(await sweepFileCleanups()).toEqual({ finished: 0, unfinished: 0 });
      expect(await sweepFileCleanups(new Date(Date.now() + uploadGraceMs + 1000))).toEqual({
        finished: 1,
        unfinished: 0,
      });
      expect(diff(withoutCounter(before), withoutCounter(await state()))).toEqual({
        added: [],
        removed: [],
        changed: [],
        objectsAdded: [],
        objectsRemoved: [],
      });

      expect((await send(request)).status).toBe(201);
      expectWhole(await state(), 'retried');
    },
  );

  it(
    'a commit that took effect but whose reply was lost keeps its file: the claim fails, nothing points at a ' +
      'missing object',
    async () => {
      const { request, commit } = await ticketWithFileSteps('committed.txt');
      const before = await state();
      const { result: reply } = await injector.run(new Map<number, FaultKind>([[commit, 'lost-reply']]), () =>
        send(request),
      );
      // The handler cannot know the ticket was stored (an Idempotency-Key makes the retry safe).
      expectRetryable(reply, 'commit reply lost');
      const after = await state();
      const d = diff(withoutCounter(before), withoutCounter(after));
      expect(d.objectsAdded).toHaveLength(1);
      expect(d.objectsRemoved).toEqual([]);
      expect(pendingCleanups(after)).toEqual([]);
      expectWhole(after, 'commit reply lost');
      expect(await sweepFileCleanups(new Date(Date.now() + uploadGraceMs + 1000))).toEqual({
        finished: 0,
        unfinished: 0,
      });
      expect((await state()).objects).toEqual(after.objects);
    },
  );

  it('a keyed create whose answer cannot be kept still answers its success (the ticket was stored)', async () => {
    await warm();
    const keyed = (key: string): Request => ({
      method: 'POST',
      path: '/api/tickets/',
      options: { json: TICKET, headers: { 'idempotency-key': key } },
    });
    const recorded = await injector.run(new Map(), () => send(keyed(unique('key'))));
    expect(recorded.result.status).toBe(201);
    // The claim (PutItem) comes first; keeping the answer (UpdateItem) comes after the commit.
    const labels = recorded.steps.map((s) => s.label);
    const keepAt = labels.lastIndexOf('UpdateItem');
    expect(keepAt).toBeGreaterThan(labels.lastIndexOf('TransactWriteItems'));

    await warm();
    const before = await state();
    const request = keyed(unique('key'));
    const { result: reply } = await injector.run(new Map<number, FaultKind>([[keepAt, 'server']]), () => send(request));
    expect(reply.status, reply.text).toBe(201);
    const tickets = (s: State) => [...s.items.values()].filter((i) => i.type === 'ticket').length;
    expect(tickets(await state())).toBe(tickets(before) + 1);
    expect((await api.call('GET', `/api/tickets/${reply.body.id}/`)).status).toBe(200);
    // The key is still claimed: the same request meanwhile is told to wait, not run again.
    expect((await send(request)).status).toBe(409);
  });

  it('a failing read of the caller (credential not cached) answers 503 and stores nothing', async () => {
    await warm();
    const request = json('POST', '/api/tickets/', TICKET);
    const before = await state();
    clearCredentialCache();
    warmedAt = 0;
    const { result: reply, steps } = await injector.run(new Map<number, FaultKind>([[0, 'throttle']]), () =>
      send(request),
    );
    // The user read, and the attempt counted for the username from this source and for the source.
    const [first, ...rest] = steps.map((s) => s.label);
    expect(first).toBe('GetItem');
    expect(
      rest.every((label) => label === 'UpdateItem' || label === 'PutItem'),
      rest.join(),
    ).toBe(true);
    expectRetryable(reply, 'authentication read throttled');
    // The attempts counted were given back (their items may stay, at zero).
    const d = diff(withoutLoginAttempts(before), withoutLoginAttempts(await state()));
    expect(d).toEqual({ added: [], removed: [], changed: [], objectsAdded: [], objectsRemoved: [] });
    expect((await send(request)).status).toBe(201);
  });
});

describe('an answer too large to return (shared/middleware/large-answers.ts)', () => {
  it('a PATCH whose answer S3 cannot take answers 503, its change made whole and nothing parked', async () => {
    const ticket = (await ok(api.call('POST', '/api/tickets/', { json: TICKET }))).body.id as number;
    for (let n = 0; n < 20; n++)
      await ok(api.call('POST', '/api/followups/', { json: { ticket, title: `r${n}`, comment: '"'.repeat(80_000) } }));
    await warm();
    const patch = (title: string) => send(json('PATCH', `/api/tickets/${ticket}/`, { title }));
    const answers = async () => (await listObjects(bucket(), LARGE_ANSWER_PREFIX)).size;
    // The steps of such a PATCH, its answer parked: the one S3 PUT is the copy's.
    const parkedBefore = await answers();
    const parked = await injector.run(new Map(), () => patch('Parked'));
    expect(parked.result.status, parked.result.text).toBe(303);
    expect(await answers()).toBe(parkedBefore + 1);
    const put = parked.steps.findIndex((s) => s.label === 'S3 PUT');
    expect(parked.steps.filter((s) => s.service === 's3').map((s) => s.label)).toEqual(['S3 PUT']);
    await warm();
    const before = await state();
    const { result: reply } = await injector.run(new Map<number, FaultKind>([[put, 'server']]), () =>
      patch('Made all the same'),
    );
    expectRetryable(reply, 'parking failed');
    expect(await answers()).toBe(parkedBefore + 1);
    expect(diff(before, await state()).changed).toContain(`TICKET#${ticket}|TICKET`);
    const read = await api.call('GET', `/api/tickets/${ticket}/`);
    const body = (await (await fetch(read.headers.get('location')!)).json()) as Json;
    expect(body.title).toBe('Made all the same');
    expect(body.followup_set).toHaveLength(21);
  }, 120_000);
});
