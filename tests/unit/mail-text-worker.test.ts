/**
 * Linear time on hostile text (issue 32): each text function of mail in is fed 1 MB of the input
 * that made it (or would make a naive version) quadratic, through the worker the ingest parses in,
 * with a budget of seconds: the old code needed minutes for these. And the budget itself: a run
 * past it is stopped and reported, and the worker serves the next one.
 */
import { describe, expect, it } from 'vitest';
import { OverBudget, runBounded } from '../../shared/mail-in/bounded';
import { TEXT_FUNCTIONS } from '../../shared/mail-in/text-worker';

const MB = 1024 * 1024;
const BUDGET = 5_000;
const fill = (unit: string, tail = '') => unit.repeat(Math.ceil((MB - tail.length) / unit.length)) + tail;

/** What made each function (or a regular expression it had) quadratic: runs of spaces, of `<`, of prefixes... */
const HOSTILE: [keyof typeof TEXT_FUNCTIONS, unknown[]][] = [
  ['trimmedBody', [fill(' ', 'x')]],
  ['trimmedBody', [fill(' \t', 'x\n')]],
  ['htmlToText', [fill('<')]],
  ['htmlToText', [fill('<script>')]],
  ['htmlToText', [fill(' ', 'x')]],
  ['htmlToText', [fill('&#99999999;')]],
  ['cleanSubject', [fill('Re: ')]],
  ['cleanSubject', [fill(' ', 'x')]],
  ['subjectTags', [fill('[a-')]],
  ['withoutOwnTags', [fill('[support-1]'), ['support']]],
  ['messageIds', [fill('<a')]],
  ['permanentFailures', [fill('Action: failed\n')]],
  ['permanentFailures', [fill('\n ')]],
  ['replyText', [fill(' ', 'x')]],
  ['replyText', [fill('> ', '\n')]],
  ['parseMail', [Buffer.from(`From: a@example.com\r\nSubject: x\r\n\r\n${fill(' ', 'x')}`)]],
  ['parseMail', [Buffer.from(`From: a@example.com\r\nContent-Type: text/html\r\nSubject: x\r\n\r\n${fill('<')}`)]],
];

describe('mail text in the worker', () => {
  it.each(HOSTILE.map(([fn, args]) => [fn, String(args[0]).slice(0, 12), args] as const))(
    '%s on 1 MB of %j finishes within its budget',
    async (fn, _sample, args) => {
      await expect(runBounded(fn, args as never, BUDGET)).resolves.toBeDefined();
    },
  );

  it('stops a run past its budget, and the next run is served', async () => {
    // A budget no 1 MB parse meets: the run is stopped, reported as over budget.
    await expect(runBounded('htmlToText', [fill('<p>x</p>')], 1)).rejects.toBeInstanceOf(OverBudget);
    await expect(runBounded('trimmedBody', [' a  '], BUDGET)).resolves.toBe('a');
  });
});
