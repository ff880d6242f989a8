/**
 * Releasing what mail in kept (issue 32), as the API's `POST /api/mail/problems/{id}/release/` does it; the CLI's
 * `retry-mail` shares each half (docs/email.md, "Who may change what").
 *
 * - An **unverified** reply: its private followup is published, and nothing else: its status change (a reopen), the
 *   CCs it named and the credit to a user stay withheld, and nobody is mailed. The review comes later than the
 *   message, so what it would have changed is left to the staff who released it, through the API as any change; and
 *   the message's own Cc list was the lever a forger pulls.
 * - A **held or failed** message: run through the ingest again past its hold (rerun.ts), by the mail release
 *   function, which has what mail in has (the raw messages, MAIL_IN_GRANTS, the parsing worker) and the API's
 *   functions do not. The route holds the problem (a conditional mark: a second release meanwhile is refused), invokes
 *   that function and waits for its answer, so the caller gets the ticket's followup, or why it was not applied.
 */
import { Conflict, NotFound, ServiceUnavailable } from '../domain/errors';
import type { Followup } from '../domain/records';
import { config } from '../config';
import { invokeFunction } from '../aws/lambda';
import { findFollowup, updateFollowup, type FoundFollowup } from '../store/followups';
import { findInbound, markReleasing, removeProblem, unmarkReleasing, type MailProblem } from '../store/inbound-mail';
import type { ReleaseAnswer, ReleaseRequest } from './rerun';

/** The followup published or made (undefined: it was deleted since, and the problem is gone with it). */
export interface Published {
  followup: Followup;
  found: FoundFollowup;
}

/**
 * How long the route waits for the release function (seconds under the route's own timeout, 15 s): a message that
 * takes longer goes on being applied, and the route answers 503 (the problem stays held until the run ends).
 */
export const RELEASE_WAIT_MS = 12_000;

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

/** The API's release of any problem (see above): the followup it published or made. */
export async function releaseProblem(problem: MailProblem): Promise<Published | undefined> {
  if (problem.kind === 'sign-in')
    throw new Conflict(
      'A sign-in problem has no message to release: the next poll signs in again. ' +
        `npm run helpdesk -- retry-mail '${problem.id}' removes it.`,
    );
  if (problem.kind === 'unverified') return publishUnverified(problem);
  const releaser = config.mailIn.releaseFunction;
  if (!releaser) throw new Conflict('No mail in is deployed here to run the message again: use the CLI, retry-mail.');
  const mark = await markReleasing(problem.id, new Date());
  if ('missing' in mark) throw new NotFound();
  if ('busy' in mark) throw new Conflict(`This message is being released already (since ${mark.busy}).`);
  const request: ReleaseRequest = { problem: problem.id, marked: mark.marked };
  let answer: ReleaseAnswer;
  try {
    answer = await invokeFunction<ReleaseAnswer>(releaser, request, RELEASE_WAIT_MS);
  } catch (error) {
    // Still running: its end lets go of the mark. Otherwise nothing was applied (or the run undid its mark itself).
    if ((error as Error).name !== 'TimeoutError') await unmarkReleasing(problem.id, mark.marked);
    throw Object.assign(new ServiceUnavailable(5), { cause: error });
  }
  return appliedFollowup(answer);
}

/** The followup a release applied (or one applied before, by another delivery), or a 409 saying why there is none. */
async function appliedFollowup(answer: ReleaseAnswer): Promise<Published | undefined> {
  if (answer.outcome === 'gone') throw new Conflict('This message was released by another request meanwhile.');
  const id =
    answer.outcome === 'ticket' || answer.outcome === 'followup'
      ? answer.followup
      : answer.outcome === 'duplicate'
        ? answer.record.followup
        : null;
  if (id === null) {
    const kept = 'problem' in answer ? `: kept again as problem ${answer.problem.id}` : '';
    const reason = 'reason' in answer ? ` (${answer.reason})` : '';
    throw new Conflict(`Not applied: ${answer.outcome}${reason}${kept}.`);
  }
  const found = await findFollowup(id);
  return found && { followup: found.followup, found };
}
