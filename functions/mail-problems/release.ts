/**
 * POST /api/mail/problems/{id}/release/ (superusers): an unverified reply's followup made public, and nothing else
 * (shared/mail-in/problems.ts); a held or failed message is the CLI's `retry-mail` (409), and a mailbox's sign-in
 * problem has no message (409).
 */
import { apiHandler, textParam } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';
import { Conflict, NotFound } from '../../shared/domain/errors';
import { followupView } from '../../shared/domain/views';
import { getProblem } from '../../shared/store/inbound-mail';
import { publishUnverified } from '../../shared/mail-in/problems';

export const handler = apiHandler('mail-problems/release', async (event) => {
  const problem = await getProblem(textParam(event, 'id'));
  if (!problem) throw new NotFound();
  if (problem.kind === 'sign-in')
    throw new Conflict(
      'A sign-in problem has no message to release: the next poll signs in again. ' +
        `npm run helpdesk -- retry-mail '${problem.id}' removes it.`,
    );
  if (problem.kind !== 'unverified')
    throw new Conflict(
      `A ${problem.kind} message is released by running the mail ingest on it again: ` +
        `npm run helpdesk -- retry-mail '${problem.id}'${problem.kind === 'held' ? ' --release' : ''}.`,
    );
  const published = await publishUnverified(problem);
  if (!published) throw new NotFound();
  const { followup, found } = published;
  return json(200, followupView(baseUrl(event), followup, found.attachments));
});
