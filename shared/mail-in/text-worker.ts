/**
 * The worker thread that parses and cleans received mail (bounded.ts starts it): a stranger's text
 * goes through parsers and regular expressions this process does not fully control (postal-mime,
 * email-reply-parser), and a synchronous function cannot be interrupted in the thread that runs it.
 * Here the main thread can stop it (Worker.terminate) when it overruns its budget.
 */
import { parentPort } from 'node:worker_threads';
import EmailReplyParser from 'email-reply-parser';
import {
  cleanSubject,
  htmlToText,
  messageIds,
  permanentFailures,
  subjectTags,
  trimmedBody,
  withoutOwnTags,
} from '../domain/mail-in';
import { MailRefused, parseMail } from './parse';
import { checkAuthor } from './verify';

/** What the worker runs: the parse, and each text function on its own (tests feed them hostile text). */
export const TEXT_FUNCTIONS = {
  parseMail: (raw: Uint8Array) => parseMail(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)),
  trimmedBody: (text: string) => trimmedBody(text),
  htmlToText: (html: string) => htmlToText(html),
  cleanSubject: (subject: string) => cleanSubject(subject),
  subjectTags: (subject: string) => subjectTags(subject),
  withoutOwnTags: (subject: string, slugs: string[]) => withoutOwnTags(subject, new Set(slugs)),
  messageIds: (value: string) => messageIds(value),
  permanentFailures: (report: string) => permanentFailures(report),
  replyText: (text: string) => new EmailReplyParser().parseReply(text),
  checkAuthor,
};

export type TextFunction = keyof typeof TEXT_FUNCTIONS;
export interface TextJob {
  fn: TextFunction;
  args: unknown[];
}
export type TextAnswer = { ok: unknown } | { refused: string } | { error: string };

parentPort?.on('message', (job: TextJob) => {
  const run = TEXT_FUNCTIONS[job.fn] as (...args: unknown[]) => unknown;
  void Promise.resolve()
    .then(() => run(...job.args))
    .then(
      (ok): TextAnswer => ({ ok }),
      (error: Error): TextAnswer =>
        error instanceof MailRefused ? { refused: error.message } : { error: error.message ?? String(error) },
    )
    .then((answer) => parentPort!.postMessage(answer));
});
