/**
 * The inbound mail commands: list-mail-problems, retry-mail (docs/email.md, "Email in"; docs/operations.md runbook).
 */
import { command, Failure } from './command';
import { show, showList } from './terminal';

export const listMailProblems = command({
  name: 'list-mail-problems',
  summary: 'list received mail that failed or waits for review (kept raw)',
  description:
    'Lists the received messages that were not applied: "failed" (unreadable, over a limit, or an error while ' +
    'applying) and "held" (spam, DMARC failure under a reject policy, or over a rate), "unverified" (applied as ' +
    'a private followup: its sender is not verified), and "sign-in" (an OAuth mailbox refused its token), oldest ' +
    'first, with the reason. Each is kept raw in the mail bucket; retry-mail runs it again.',
  examples: ['npm run helpdesk -- list-mail-problems'],
  async run(ctx) {
    const { listProblems } = await import('../shared/store/inbound-mail');
    showList(ctx, await listProblems(), 'No mail problems.', ['ID', 'KIND', 'FROM', 'REASON'], (p) => [
      p.id,
      p.kind,
      p.sender || '-',
      p.reason,
    ]);
  },
});

export const retryMail = command({
  name: 'retry-mail',
  args: ['id'],
  summary: 'run a kept message through the mail ingest again (after a fix, or to release a held one)',
  description:
    'Reads the kept raw message of a problem (list-mail-problems) and runs the ingest on it again, as it ran ' +
    'when the mail arrived; the problem is removed once the message is applied (a message that fails again is ' +
    'kept as a new problem). --release lets a held message through its hold (spam, DMARC, rate); an unverified ' +
    'reply is released by publishing its private followup (nothing else). POST /api/mail/problems/{id}/release/ ' +
    'does the same, with --release for a held or failed one. A message applied before is not applied twice.',
  options: { release: { type: 'boolean', help: 'apply a held message despite its hold' } },
  examples: ['npm run helpdesk -- retry-mail 2026-11-27T10:15:00.000Z#1a2b3c4d --release'],
  async run(ctx) {
    const [{ getProblem, removeProblem, markReleasing }, { rerunProblem }] = await Promise.all([
      import('../shared/store/inbound-mail'),
      import('../shared/mail-in/rerun'),
    ]);
    const problem = await getProblem(ctx.args[0]!);
    if (!problem) throw new Failure(`No mail problem with id ${ctx.args[0]}.`);
    if (problem.kind === 'sign-in') {
      // No message to run again: the poller signs in again at each run; the problem is only words.
      await removeProblem(problem.id);
      show(ctx, problem, 'A sign-in problem has no message: removed. The next poll signs in again.');
      return;
    }
    // An unverified reply was applied (privately): releasing it publishes its followup, as the API's release does.
    if (problem.kind === 'unverified') {
      const { publishUnverified } = await import('../shared/mail-in/problems');
      const published = await publishUnverified(problem);
      show(
        ctx,
        published?.followup ?? null,
        published
          ? `Published: followup ${published.followup.id} on ticket ${published.followup.ticket} is public.`
          : 'Its followup was deleted: nothing to publish.',
      );
      return;
    }
    // Held as the API's release holds it: one run at a time, whichever started it.
    const mark = await markReleasing(problem.id, new Date());
    if ('missing' in mark) throw new Failure(`No mail problem with id ${problem.id}.`);
    if ('busy' in mark) throw new Failure(`Mail problem ${problem.id} is being released already (since ${mark.busy}).`);
    const result = await rerunProblem(problem, ctx.options.release === true, mark.marked);
    const text =
      result.outcome === 'ticket' || result.outcome === 'followup'
        ? `Applied: ${result.outcome} ${result.followup} on ticket ${result.ticket}.`
        : result.outcome === 'duplicate'
          ? 'Already applied before: nothing to do.'
          : `Not applied: ${result.outcome} (${result.reason}).`;
    show(ctx, result, text);
    if (result.outcome === 'failed' || result.outcome === 'refused' || result.outcome === 'held')
      throw new Failure(`Kept again as problem ${result.problem.id}.`);
  },
});
