/** Ignored senders (upstream's IgnoreEmail): ignore-sender, list-ignored-senders, unignore-sender. */
import { command, Failure } from './command';
import { show, showList } from './terminal';
import { jsonBody, validated } from './rules';

export const ignoreSender = command({
  name: 'ignore-sender',
  args: ['address'],
  summary: 'ignore mail from an address or a pattern (*@example.com)',
  description:
    "Mail from the address (or upstream's patterns: *@example.com, noreply@*; any case) to the queues given " +
    '(default every queue) opens and changes no ticket, by any way in; it is recorded as ignored. The rules of ' +
    'POST /api/ignored-senders/.',
  options: {
    name: { type: 'string', value: 'NAME', help: 'what the rule is for (default: the address)' },
    queues: { type: 'string', value: 'SLUGS', help: 'only mail to these queues (comma-separated slugs)' },
    'keep-in-mailbox': {
      type: 'boolean',
      help: 'a mailbox read over IMAP leaves the message there, read (default: marked done as the mailbox says)',
    },
  },
  examples: [
    'npm run helpdesk -- ignore-sender "*@alerts.example.com" --name Monitoring',
    'npm run helpdesk -- ignore-sender newsletter@example.com --queues billing --keep-in-mailbox',
  ],
  async prepare(ctx) {
    const { parseIgnoredSenderBody, ignoredSenderView } = await import('../shared/domain/ignored-senders');
    const address = ctx.args[0]!;
    const fields = validated('Invalid rule', { name: '--name', email_address: '<address>' }, () =>
      parseIgnoredSenderBody(
        jsonBody({ name: typeof ctx.options.name === 'string' ? ctx.options.name : address, email_address: address }),
        'create',
      ),
    ) as { name: string; email_address: string };
    const slugs =
      typeof ctx.options.queues === 'string'
        ? ctx.options.queues
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [];
    return async () => {
      const [{ listQueues }, { createIgnoredSender }, { storedDateTime }] = await Promise.all([
        import('../shared/store/queues'),
        import('../shared/store/ignored-senders'),
        import('../shared/domain/datetime'),
      ]);
      const queues = await listQueues();
      const missing = slugs.filter((s) => !queues.some((q) => q.slug === s));
      if (missing.length) throw new Failure(`No queue with the slug ${missing.map((s) => `"${s}"`).join(', ')}.`);
      const rule = await createIgnoredSender({
        ...fields,
        queues: queues.filter((q) => slugs.includes(q.slug)).map((q) => q.id),
        keep_in_mailbox: ctx.options['keep-in-mailbox'] === true,
        date: storedDateTime(new Date()),
      });
      show(
        ctx,
        ignoredSenderView(rule),
        `Ignoring ${rule.email_address} (rule ${rule.id}) for ${slugs.length ? slugs.join(', ') : 'every queue'}.`,
      );
    };
  },
});

export const listIgnoredSenders = command({
  name: 'list-ignored-senders',
  summary: 'list the senders whose mail is ignored',
  description: 'Every ignore rule: id, address or pattern, queues (none: all), whether a mailbox keeps the message.',
  examples: ['npm run helpdesk -- list-ignored-senders'],
  async run(ctx) {
    const [{ listIgnoredSenders }, { ignoredSenderView }] = await Promise.all([
      import('../shared/store/ignored-senders'),
      import('../shared/domain/ignored-senders'),
    ]);
    const rules = (await listIgnoredSenders({ fresh: true })).map(ignoredSenderView);
    showList(ctx, rules, 'No ignored senders.', ['ID', 'ADDRESS', 'QUEUES', 'KEEP', 'NAME'], (r) => [
      r.id,
      r.email_address,
      r.queues.length ? r.queues.join(',') : 'all',
      r.keep_in_mailbox ? 'yes' : 'no',
      r.name,
    ]);
  },
});

export const unignoreSender = command({
  name: 'unignore-sender',
  args: ['id'],
  summary: 'delete an ignore rule',
  description: 'Mail from the address is taken in again (by a running mail in within a minute).',
  examples: ['npm run helpdesk -- unignore-sender 3'],
  async run(ctx) {
    const { deleteIgnoredSender } = await import('../shared/store/ignored-senders');
    if (!/^\d{1,12}$/.test(ctx.args[0] ?? '') || !(await deleteIgnoredSender(Number(ctx.args[0]))))
      throw new Failure(`No ignore rule ${ctx.args[0]}.`);
    show(ctx, { id: Number(ctx.args[0]) }, `Deleted ignore rule ${ctx.args[0]}.`);
  },
});
