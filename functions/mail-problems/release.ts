/**
 * POST /api/mail/problems/{id}/release/ (superusers): an unverified reply's followup made public, and nothing else;
 * a held or failed message run through the ingest again past its hold, by the mail release function (409 while
 * another release runs it, or when it is not applied again); a mailbox's sign-in problem has no message (409).
 * shared/mail-in/problems.ts.
 */
import { apiHandler, textParam } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { followupView } from '../../shared/domain/views';
import { getProblem } from '../../shared/store/inbound-mail';
import { releaseProblem } from '../../shared/mail-in/problems';

/** What a second release of one message hears, once the first has run. */
const NO_PROBLEM = 'No mail problem with this id: released already, or never kept.';

export const handler = apiHandler('mail-problems/release', async (event) => {
  const problem = await getProblem(textParam(event, 'id'));
  if (!problem) throw new NotFound(NO_PROBLEM);
  const released = await releaseProblem(problem);
  if (!released) throw new NotFound();
  const { followup, found } = released;
  return json(200, followupView(baseUrl(event), followup, found.attachments));
});
