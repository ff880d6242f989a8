/** The queue commands: create-queue, update-queue, list-queues (escalation's settings too: --escalate-days). */
import { command, Failure, unlessDuplicate, type Context, type OptionSpec } from './command';
import { domain, jsonBody, validated } from './rules';
import { show, showList } from './terminal';

/** A queue's mail settings on the command line (docs/email.md, "Queue mail settings and CC lists"). */
const MAIL_OPTIONS: Record<string, OptionSpec> = {
  'email-address': {
    type: 'string',
    value: 'ADDRESS',
    help: 'the From: of the queue\'s mail ("<title> <ADDRESS>"); "" for the default sender',
  },
  'new-ticket-cc': {
    type: 'string',
    value: 'LIST',
    help: 'comma-separated addresses told of every new ticket ("" for none)',
  },
  'updated-ticket-cc': {
    type: 'string',
    value: 'LIST',
    help: 'comma-separated addresses told of every change ("" for none)',
  },
  'disabled-mail': {
    type: 'string',
    value: 'KINDS',
    help: 'comma-separated mail kinds this queue sends none of, e.g. updated_cc,closed_cc ("" for none)',
  },
  'escalate-days': {
    type: 'string',
    value: 'DAYS',
    help: 'days (holidays not counted) an open ticket waits before `escalate` raises its priority ("" for never)',
  },
};
const FIELD_NAMES = {
  title: '--title',
  slug: '--slug',
  email_address: '--email-address',
  new_ticket_cc: '--new-ticket-cc',
  updated_ticket_cc: '--updated-ticket-cc',
  disabled_mail: '--disabled-mail',
  escalate_days: '--escalate-days',
};

/** The queue fields the options give (as a JSON body would; `disabled_mail` as its form spelling). */
function queueOptions(ctx: Context): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [field, option] of Object.entries(FIELD_NAMES)) {
    const value = ctx.options[option.slice(2)];
    // An empty --escalate-days clears it (null), as "" clears the other settings.
    if (typeof value === 'string') data[field] = field === 'escalate_days' && value.trim() === '' ? null : value;
  }
  return data;
}

export const createQueue = command({
  name: 'create-queue',
  summary: 'create a queue',
  description: 'Creates a queue with the next free id. The slug must be unique.',
  options: {
    title: { type: 'string', value: 'TITLE', help: 'title, at most 100 characters (required)' },
    slug: { type: 'string', value: 'SLUG', help: 'letters, digits, _ and -, at most 50 characters, unique (required)' },
    ...MAIL_OPTIONS,
  },
  required: ['title', 'slug'],
  examples: ['npm run helpdesk -- create-queue --title "Billing" --slug billing --email-address billing@example.com'],
  prepare(ctx) {
    const fields = validated('Invalid queue', FIELD_NAMES, () =>
      domain.parseQueueBody(jsonBody(queueOptions(ctx)), 'create'),
    ) as { title: string; slug: string };
    return async () => {
      const { createQueue, DuplicateSlug } = await import('../shared/store/queues');
      const duplicate = `Cannot create the queue: a queue with slug "${fields.slug}" already exists.`;
      const queue = await unlessDuplicate(DuplicateSlug, duplicate, () => createQueue(fields));
      show(ctx, domain.queueView(queue), `Created queue ${queue.id} "${queue.title}" (slug ${queue.slug}).`);
    };
  },
});

export const updateQueue = command({
  name: 'update-queue',
  args: ['id'],
  summary: "change a queue's title, slug or mail settings",
  description: 'Changes only what the options give; the rules are those of PATCH /api/queues/{id}/.',
  options: {
    title: { type: 'string', value: 'TITLE', help: 'title, at most 100 characters' },
    slug: { type: 'string', value: 'SLUG', help: 'letters, digits, _ and -, unique' },
    ...MAIL_OPTIONS,
  },
  examples: [
    'npm run helpdesk -- update-queue 1 --new-ticket-cc "lead@example.com, ops@example.com" --disabled-mail updated_cc',
  ],
  prepare(ctx) {
    const id = Number(ctx.args[0]);
    if (!/^\d{1,15}$/.test(ctx.args[0] ?? '')) throw new Failure(`No queue "${ctx.args[0]}": give its id.`);
    const changes = validated('Invalid queue', FIELD_NAMES, () =>
      domain.parseQueueBody(jsonBody(queueOptions(ctx)), 'partial'),
    );
    return async () => {
      const { getQueue, updateQueue, DuplicateSlug } = await import('../shared/store/queues');
      const queue = await getQueue(id);
      if (!queue) throw new Failure(`No queue ${id}.`);
      const updated = await unlessDuplicate(
        DuplicateSlug,
        `Cannot change the queue: a queue with slug "${String(changes.slug)}" already exists.`,
        () => updateQueue(queue, changes),
      );
      show(ctx, domain.queueView(updated), `Updated queue ${updated.id} "${updated.title}".`);
    };
  },
});

export const listQueues = command({
  name: 'list-queues',
  summary: 'list queues',
  description: 'Lists every queue.',
  examples: ['npm run helpdesk -- list-queues'],
  async run(ctx) {
    const { listQueues } = await import('../shared/store/queues');
    const queues = (await listQueues()).sort((a, b) => a.id - b.id).map(domain.queueView);
    showList(ctx, queues, 'No queues.', ['ID', 'SLUG', 'TITLE'], (q) => [q.id, q.slug, q.title]);
  },
});
