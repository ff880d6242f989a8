/**
 * A typed integration, as a new integrator would write it: types generated from the served OpenAPI
 * document with openapi-typescript, calls made with openapi-fetch. No casts, no `any`, no type guards
 * of our own: every request and answer is typed by the document.
 *
 * It creates a ticket with and without a file, adds a followup with two files that resolves it,
 * downloads a file, lists by status, pages through a filtered list, changes a ticket under
 * `If-Match`, subscribes a receiver (receiver.ts) and pings it, reads the change feed, handles a 400
 * and a 404, and deletes what it made. Generate, compile and run (tests/integration/typed-clients.test.ts
 * does this in CI, against the local runtime):
 *
 *   npx tsx scripts/typed-clients.ts generate http://localhost:3000      (with HELPDESK_USERNAME/PASSWORD)
 *   HELPDESK_URL=http://localhost:3000 HELPDESK_USERNAME=admin HELPDESK_PASSWORD=... npx tsx
 * examples/typed-client/client.ts
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema';
import { describePayload, startReceiver, type WebhookPayload } from './receiver';

type Ticket = components['schemas']['Ticket'];

const baseUrl = process.env.HELPDESK_URL ?? 'http://localhost:3000';
const credentials = Buffer.from(
  `${process.env.HELPDESK_USERNAME ?? 'admin'}:${process.env.HELPDESK_PASSWORD ?? ''}`,
).toString('base64');
const api = createClient<paths>({ baseUrl, headers: { authorization: `Basic ${credentials}` } });

/** Multipart bodies: each field a part, files as files (repeated for a list), null left out. */
function formData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  const append = (name: string, value: unknown) => {
    if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : name);
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      form.append(name, String(value));
  };
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) value.forEach((item) => append(name, item));
    else append(name, value);
  }
  return form;
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`Unexpected: ${what}`);
  console.log(`ok  ${what}`);
}

const run = Date.now().toString(36);
const submitter = `typed-${run}@example.com`;

// 1. A ticket from JSON, and one from multipart with a file.
const plain = await api.POST('/api/tickets/', {
  body: {
    queue: 1,
    title: `Typed client ${run}`,
    description: 'Made from JSON.',
    submitter_email: submitter,
    priority: 3,
  },
});
if (!plain.data) throw new Error(`create: ${plain.response.status}`);
const ticket: Ticket = plain.data;
check(
  ticket.status === 1 && ticket.followup_set.length === 1,
  'a ticket created from JSON is open with its opening followup',
);

const withFile = await api.POST('/api/tickets/', {
  body: {
    queue: 1,
    title: `Typed client ${run}, with a file`,
    description: 'Made from multipart.',
    submitter_email: submitter,
    attachment: new File(['hello from the typed client\n'], 'hello.txt', { type: 'text/plain' }),
  },
  bodySerializer: formData,
});
if (!withFile.data) throw new Error(`create with a file: ${withFile.response.status}`);
const opening = withFile.data.followup_set[0];
check(opening?.followupattachment_set[0]?.filename === 'hello.txt', 'a ticket created from multipart carries its file');

// A misspelled field does not compile, in an answer or in a body.
// @ts-expect-error `submiter_email` is not a Ticket field
void ticket.submiter_email;
// openapi-fetch infers its options argument, which skips TypeScript's check of excess properties:
// a body declared with its type is checked.
type TicketChange = NonNullable<paths['/api/tickets/{id}/']['patch']['requestBody']>['content']['application/json'];
// @ts-expect-error `priorty` is not a field of the body
const misspelled: TicketChange = { priorty: 1 };
void misspelled;

// 2. A followup with two files that resolves the ticket.
const followup = await api.POST('/api/followups/', {
  body: {
    ticket: ticket.id,
    title: '',
    comment: 'Fixed: see the two files.',
    public: true,
    new_status: 3,
    attachments: [
      new File(['one'], 'one.txt', { type: 'text/plain' }),
      new File(['two'], 'two.txt', { type: 'text/plain' }),
    ],
  },
  bodySerializer: formData,
});
if (!followup.data) throw new Error(`followup: ${followup.response.status}`);
check(
  followup.data.new_status === 3 && followup.data.followupattachment_set.length === 2,
  'a followup with two files resolves the ticket',
);

// Downloading a file: a 302 to the file itself, which fetch follows; the file is read as bytes.
const attachment = followup.data.followupattachment_set.find((a) => a.filename === 'two.txt');
if (!attachment) throw new Error('no attachment two.txt');
const download = await api.GET('/api/tickets/{id}/attachments/{attachmentId}/', {
  params: { path: { id: ticket.id, attachmentId: attachment.id } },
  parseAs: 'text',
});
check(download.response.ok && download.data === 'two', 'a file downloads through its redirect (parseAs: text)');

// 3. The list by status: the resolved ticket is in it.
const resolved = await api.GET('/api/tickets/', { params: { query: { status: '3', ordering: '-id', page_size: 10 } } });
check(resolved.data?.results.some((t) => t.id === ticket.id) === true, 'the ticket is listed under status 3');

// 4. Paging through a filtered list (cursor links): one ticket a page.
const seen: number[] = [];
let cursor: string | undefined;
for (let page = 0; page < 10; page++) {
  const listed = await api.GET('/api/tickets/', {
    params: { query: { submitter_email: submitter, page_size: 1, ...(cursor ? { cursor } : {}) } },
  });
  if (!listed.data) throw new Error(`list: ${listed.response.status}`);
  seen.push(...listed.data.results.map((t) => t.id));
  const next = listed.data.next;
  if (next === null) break;
  cursor = new URL(next).searchParams.get('cursor') ?? undefined;
}
check(seen.length === 2 && seen.includes(ticket.id), 'paging by cursor finds both tickets, one a page');

// 5. A change under If-Match: with the current ETag it is made; with an old one, 412.
const current = await api.GET('/api/tickets/{id}/', { params: { path: { id: ticket.id } } });
const etag = current.response.headers.get('etag') ?? '';
const raise: TicketChange = { priority: 1 };
const changed = await api.PATCH('/api/tickets/{id}/', {
  params: { path: { id: ticket.id }, header: { 'If-Match': etag } },
  body: raise,
});
check(changed.data?.priority === 1, 'PATCH with the current If-Match is made');
const stale = await api.PATCH('/api/tickets/{id}/', {
  params: { path: { id: ticket.id }, header: { 'If-Match': etag } },
  body: { priority: 2 },
});
check(
  stale.response.status === 412 && stale.error?.detail !== undefined,
  `PATCH with an old If-Match answers 412: ${stale.error?.detail}`,
);

// 6. A webhook: subscribe a receiver, ping it, and see the ticket events it is posted.
const received: WebhookPayload[] = [];
const receiver = await startReceiver((payload) => received.push(payload));
try {
  const subscribed = await api.POST('/api/webhooks/', {
    body: { url: receiver.url, events: ['ticket.created', 'ticket.updated'], description: `typed client ${run}` },
  });
  if (!subscribed.data) throw new Error(`subscribe: ${subscribed.response.status} ${JSON.stringify(subscribed.error)}`);
  const subscription = subscribed.data;
  receiver.trust(subscription.secret);
  try {
    const ping = await api.POST('/api/webhooks/{id}/ping/', { params: { path: { id: subscription.id } } });
    check(ping.data?.delivered === true, 'the ping is delivered');
    const pinged = received.find((p) => p.type === 'webhook.ping');
    check(
      pinged?.type === 'webhook.ping' && pinged.data.subscription === subscription.id,
      `the receiver got the ping: ${pinged ? describePayload(pinged) : 'nothing'}`,
    );
    const again = await api.PATCH('/api/tickets/{id}/', {
      params: { path: { id: ticket.id } },
      body: { on_hold: true },
    });
    check(again.data?.on_hold === true, 'a change after subscribing');
    // Events of changes made before subscribing may arrive too (a subscription hears what is dispatched after it
    // exists).
    const updated = await waitFor(() =>
      received.find(
        (p) => p.type === 'ticket.updated' && p.data.ticket === ticket.id && p.data.changes?.on_hold !== undefined,
      ),
    );
    check(
      updated.type === 'ticket.updated' && updated.data.changes?.on_hold !== undefined,
      `the receiver got the change: ${describePayload(updated)}`,
    );
  } finally {
    await api.DELETE('/api/webhooks/{id}/', { params: { path: { id: subscription.id } } });
  }
} finally {
  await receiver.close();
}

// 7. The change feed: the ticket's creation and change, oldest first, by cursor.
// Read from the oldest event kept, then keep polling from the last `cursor`: it never skips an event.
const events: components['schemas']['ChangeEvent'][] = [];
let after: string | undefined;
await waitFor(async () => {
  for (;;) {
    const page = await api.GET('/api/events/', { params: { query: { limit: 1000, ...(after ? { after } : {}) } } });
    if (!page.data) throw new Error(`events: ${page.response.status}`);
    events.push(...page.data.results.filter((e) => e.ticket === ticket.id));
    after = page.data.cursor ?? after;
    if (page.data.next === null) break;
  }
  return events.find((e) => e.event === 'ticket.updated');
});
check(
  events[0]?.event === 'ticket.created',
  `the change feed lists the ticket's events: ${events.map((e) => e.event).join(', ')}`,
);

// 8. Errors: a 400 names the fields (an empty description under `body`, as upstream); a 404 says what.
const invalid = await api.POST('/api/tickets/', {
  body: { queue: 1, title: '', description: 'x', submitter_email: 'not an address' },
});
const fieldErrors = invalid.error;
// FieldErrors never has `detail`: the check tells the two 400 bodies apart.
if (fieldErrors === undefined || 'detail' in fieldErrors)
  throw new Error(`expected field errors, got ${invalid.response.status}`);
check(
  invalid.response.status === 400 && fieldErrors.title !== undefined && fieldErrors.submitter_email !== undefined,
  `400 with field errors: ${Object.keys(fieldErrors).join(', ')}`,
);
const undescribed = await api.POST('/api/tickets/', {
  body: { queue: 1, title: 'No description', description: '', submitter_email: submitter },
});
check(
  undescribed.response.status === 400 &&
    undescribed.error !== undefined &&
    !('detail' in undescribed.error) &&
    undescribed.error.body !== undefined,
  'an empty description is reported under `body`',
);
const missing = await api.GET('/api/tickets/{id}/', { params: { path: { id: 999_999_999 } } });
check(missing.response.status === 404 && missing.error?.detail === 'Not found.', '404 with its detail');

// 9. Deleting: 204, then 404.
for (const id of [ticket.id, withFile.data.id]) {
  const deleted = await api.DELETE('/api/tickets/{id}/', { params: { path: { id } } });
  check(deleted.response.status === 204, `ticket ${id} deleted`);
}
check(
  (await api.GET('/api/tickets/{id}/', { params: { path: { id: ticket.id } } })).response.status === 404,
  'a deleted ticket answers 404',
);
console.log('typed client: all steps passed');

/**
 * Polls until `find` gives a value (events and deliveries follow a change by a few seconds; more on a busy machine).
 */
async function waitFor<T>(find: () => T | undefined | Promise<T | undefined>, seconds = 90): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await find();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${seconds} s`);
    await new Promise((wake) => setTimeout(wake, 250));
  }
}
