/**
 * Running a kept message through the ingest again: the one implementation behind the CLI's `retry-mail` and the mail
 * release function (functions/mail-in/release.ts), which the API's release runs for a held or failed message
 * (problems.ts). It needs what mail in has (the raw message, MAIL_IN_GRANTS, the parsing worker), so it runs where
 * mail in runs: the CLI's process, or that function.
 *
 * A run holds the problem (store/inbound-mail.ts `markReleasing`) so that two never apply it at once; its end removes
 * the problem, whatever the outcome: a message that fails again, or is held again, is kept as a new problem (one more
 * attempt) by the ingest itself, and nothing runs it again until someone releases that. A run that throws (a
 * dependency down) lets go of its mark and leaves the problem as it was.
 */
import { config } from '../config';
import { getFile } from '../aws/s3';
import { INBOUND_IMAP_PREFIX } from '../store/keys';
import { getProblem, removeProblem, unmarkReleasing, type MailProblem } from '../store/inbound-mail';
import { ingest, type IngestResult } from './ingest';

/** What the release function is asked: the problem, and the mark its caller holds it by. */
export interface ReleaseRequest {
  problem: string;
  marked: string;
}

/** A release's answer: the ingest's result, or `gone` when the problem was no longer held by this request. */
export type ReleaseAnswer = IngestResult | { outcome: 'gone' };

/** The bucket a kept message is in: the IMAP poller's own where SES mail in has another (infra/mail-release.ts). */
const bucketOf = (rawKey: string) =>
  (rawKey.startsWith(INBOUND_IMAP_PREFIX) && config.mailIn.imapBucket) || config.mailIn.bucket;

/**
 * Runs `problem`'s message through the ingest again (`release`: past its hold), held by `marked`; removes the problem
 * once the ingest has returned.
 */
export async function rerunProblem(problem: MailProblem, release: boolean, marked: string): Promise<IngestResult> {
  try {
    const raw = await getFile(problem.raw_key, bucketOf(problem.raw_key));
    const result = await ingest({
      raw,
      rawKey: problem.raw_key,
      recipients: problem.recipients,
      release,
      attempts: problem.attempts + 1,
    });
    await removeProblem(problem.id);
    return result;
  } catch (error) {
    await unmarkReleasing(problem.id, marked).catch(() => undefined);
    throw error;
  }
}

/** The release function's work: the problem's message run again past its hold, if `request` still holds it. */
export async function runRelease(request: ReleaseRequest): Promise<ReleaseAnswer> {
  const problem = await getProblem(request.problem);
  if (!problem || problem.releasing_at !== request.marked) return { outcome: 'gone' };
  return rerunProblem(problem, true, request.marked);
}
