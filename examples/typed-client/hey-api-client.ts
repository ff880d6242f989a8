/**
 * The same API through a second generator, @hey-api/openapi-ts (settings: openapi-ts.config.ts):
 * its SDK functions send multipart with the files typed, and its error types are per status. The
 * typed client check compiles this and runs it against the local runtime (scripts/typed-clients.ts).
 */
import { client } from './generated/hey-api/client.gen';
import {
  followupsCreate,
  ticketsCreate,
  ticketsDelete,
  ticketsGet,
  type TicketsCreateErrors,
  type TicketsGetErrors,
} from './generated/hey-api';

client.setConfig({
  baseUrl: process.env.HELPDESK_URL ?? 'http://localhost:3000',
  auth: () => `${process.env.HELPDESK_USERNAME ?? 'admin'}:${process.env.HELPDESK_PASSWORD ?? ''}`,
});

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`Unexpected: ${what}`);
  console.log(`ok  ${what}`);
}

// Errors by status, each its own type: a 404's body is an ErrorDetail, a 400's field errors or a detail.
const notFound: TicketsGetErrors[404] = { detail: 'Not found.' };
const invalid: TicketsCreateErrors[400] = { title: ['This field is required.'] };
void [notFound, invalid];

const created = await ticketsCreate({
  body: {
    queue: 1,
    title: 'Through hey-api',
    description: 'With a file.',
    submitter_email: 'hey-api@example.com',
    attachment: new File(['from hey-api'], 'hey.txt', { type: 'text/plain' }),
  },
});
if (!created.data) throw new Error(`create: ${created.response.status}`);
const ticket = created.data;
check(
  ticket.followup_set[0]?.followupattachment_set[0]?.filename === 'hey.txt',
  'hey-api sends multipart: the ticket carries its file',
);

const followup = await followupsCreate({
  body: {
    ticket: ticket.id,
    title: '',
    comment: 'Two files.',
    new_status: 3,
    attachments: [new Blob(['one']), new File(['two'], 'two.txt')],
  },
});
check(
  followup.data?.followupattachment_set.length === 2 && followup.data.new_status === 3,
  'a followup with two files, resolving',
);

const missing = await ticketsGet({ path: { id: 999_999_999 } });
check(missing.response.status === 404 && missing.error?.detail === 'Not found.', '404 with its detail');
check((await ticketsDelete({ path: { id: ticket.id } })).response.status === 204, 'deleted');
console.log('hey-api client: all steps passed');
