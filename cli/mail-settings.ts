/**
 * The mail settings' commands: list-suppressions, unsuppress, list-failed-mail, and ses-event (the local stand-in for
 * Amazon SES's events: one as EventBridge delivers it, run through the recorder, on the target table).
 */
import { command, Failure } from './command';
import { show, showList } from './terminal';

export const listSuppressions = command({
  name: 'list-suppressions',
  summary: 'list the addresses mail no longer goes to',
  description: 'The suppression list: addresses that bounced hard or complained, and why.',
  examples: ['npm run helpdesk -- list-suppressions'],
  async run(ctx) {
    const [{ listSuppressions }, { suppressionView }] = await Promise.all([
      import('../shared/store/suppressions'),
      import('../shared/domain/mail-settings'),
    ]);
    const entries = (await listSuppressions()).map(suppressionView);
    showList(ctx, entries, 'No suppressed addresses.', ['ADDRESS', 'REASON', 'SINCE', 'DETAIL'], (s) => [
      s.address,
      s.reason,
      s.since,
      s.detail,
    ]);
  },
});

export const unsuppress = command({
  name: 'unsuppress',
  args: ['address'],
  summary: 'take an address off the suppression list',
  description: 'Mail goes to the address again (any case).',
  examples: ['npm run helpdesk -- unsuppress someone@example.com'],
  async run(ctx) {
    const { unsuppress } = await import('../shared/store/suppressions');
    if (!(await unsuppress(ctx.args[0]!))) throw new Failure(`"${ctx.args[0]}" is not on the suppression list.`);
    show(ctx, { address: ctx.args[0] }, `Mail goes to ${ctx.args[0]} again.`);
  },
});

export const listFailedMail = command({
  name: 'list-failed-mail',
  summary: 'list the mails that failed on every attempt',
  description:
    'Mails the sender gave up on after its attempts (SMTP or SES refusing them), or that had nobody left to tell ' +
    '(the ticket deleted first), oldest first: ticket, kind, recipient, attempts and the last error. On AWS each ' +
    'one that failed on every attempt also raised the mail dead-letter alarm. GET /api/tickets/{id}/emails/ ' +
    "shows the ticket's whole mail log.",
  examples: [
    'npm run helpdesk -- list-failed-mail',
    'npm run helpdesk -- list-failed-mail --table helpdesk-prod-Table --json',
  ],
  async run(ctx) {
    const { listFailedMail } = await import('../shared/store/mail-log');
    showList(
      ctx,
      await listFailedMail(),
      'No failed mail.',
      ['TICKET', 'FAILED', 'KIND', 'RECIPIENT', 'ATTEMPTS', 'ERROR'],
      (m) => [String(m.ticket), m.failed, m.kind, m.recipient, String(m.attempts), m.error],
    );
  },
});

const EVENT_TYPES = ['bounce', 'complaint', 'delivery', 'reject'] as const;

export const sesEvent = command({
  name: 'ses-event',
  args: ['type'],
  summary: 'simulate an SES event (bounce, complaint, delivery, reject) for a sent mail',
  description:
    "The local stand-in for Amazon SES's events: builds one as EventBridge delivers it and runs it through the " +
    'recorder, as on AWS. A bounce (permanent) or complaint puts the recipient on the suppression list; the ' +
    "mail's status follows.",
  options: {
    'message-id': {
      type: 'string',
      value: 'ID',
      help: "the mail's Message-ID, as GET /api/tickets/{id}/emails/ shows it (required)",
    },
    recipient: { type: 'string', value: 'ADDRESS', help: 'the recipient it concerns (required)' },
  },
  required: ['message-id', 'recipient'],
  examples: ['npm run helpdesk -- ses-event bounce --message-id "<...@localhost>" --recipient someone@example.com'],
  prepare(ctx) {
    const type = ctx.args[0] as (typeof EVENT_TYPES)[number];
    if (!EVENT_TYPES.includes(type))
      throw new Failure(`The event type is one of ${EVENT_TYPES.join(', ')}, not "${ctx.args[0]}".`);
    return async () => {
      const [{ simulatedSesEvent }, { recordSesEvent }] = await Promise.all([
        import('../shared/domain/ses-events'),
        import('../shared/mail/ses-events'),
      ]);
      const outcome = await recordSesEvent(
        simulatedSesEvent(type, String(ctx.options['message-id']), String(ctx.options.recipient)),
      );
      const said = {
        recorded: 'Recorded on its mail.',
        'unknown-mail': 'No mail has that Message-ID (any suppression was made).',
        ignored: 'Not understood.',
      }[outcome];
      show(ctx, { type, outcome }, `${type}: ${said}`);
    };
  },
});
