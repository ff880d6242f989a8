/**
 * Reviewing what mail in kept (issue 32): the one implementation behind the CLI's `retry-mail` and the API's
 * `POST /api/mail/problems/{id}/release/` for an unverified reply. Releasing one publishes its private followup and
 * does nothing else: its status change (a reopen), the CCs it named and the credit to a user stay withheld, and
 * nobody is mailed. The review comes later than the message, so what it would have changed is left to the staff who
 * released it, through the API as any change; and the message's own Cc list was the lever a forger pulls.
 * A held or failed message is released by running the ingest again (`retry-mail`): that needs the mail-in function's
 * grants and worker, which the API's functions do not have.
 */
import { NotFound } from '../domain/errors';
import type { Followup } from '../domain/records';
import { findFollowup, updateFollowup, type FoundFollowup } from '../store/followups';
import { findInbound, removeProblem, type MailProblem } from '../store/inbound-mail';

/** The followup published (undefined: it was deleted since, and the problem is gone with it). */
export interface Published {
  followup: Followup;
  found: FoundFollowup;
}

/** Publishes an unverified reply's followup and removes its problem (see above). */
export async function publishUnverified(problem: MailProblem): Promise<Published | undefined> {
  const record = problem.message_id ? await findInbound(problem.message_id) : undefined;
  if (!record || record.followup === null) throw new NotFound();
  const found = await findFollowup(record.followup);
  const followup =
    found && (found.followup.public ? found.followup : await updateFollowup(found, { public: true }, undefined));
  await removeProblem(problem.id);
  return found && followup ? { followup, found } : undefined;
}
