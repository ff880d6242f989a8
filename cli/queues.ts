/** The queue commands: create-queue, list-queues. */
import { command, unlessDuplicate } from './command';
import { domain, jsonBody, validated } from './rules';
import { show, showList } from './terminal';

export const createQueue = command({
  name: 'create-queue',
  summary: 'create a queue',
  description: 'Creates a queue with the next free id. The slug must be unique.',
  options: {
    title: { type: 'string', value: 'TITLE', help: 'title, at most 100 characters (required)' },
    slug: { type: 'string', value: 'SLUG', help: 'letters, digits, _ and -, at most 50 characters, unique (required)' },
  },
  required: ['title', 'slug'],
  examples: ['npm run helpdesk -- create-queue --title "Billing" --slug billing'],
  prepare(ctx) {
    const fields = validated('Invalid queue', { title: '--title', slug: '--slug' }, () =>
      domain.parseQueueBody(jsonBody({ title: ctx.options.title, slug: ctx.options.slug }), 'create'),
    ) as { title: string; slug: string };
    return async () => {
      const { createQueue, DuplicateSlug } = await import('../shared/store/queues');
      const duplicate = `Cannot create the queue: a queue with slug "${fields.slug}" already exists.`;
      const queue = await unlessDuplicate(DuplicateSlug, duplicate, () => createQueue(fields));
      show(ctx, domain.queueView(queue), `Created queue ${queue.id} "${queue.title}" (slug ${queue.slug}).`);
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
