/** GET /api/mail/problems/ (superusers): received mail that failed, is held, or was applied unverified (kept raw). */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { mailProblemView } from '../../shared/domain/mail-in';
import { listProblems } from '../../shared/store/inbound-mail';

export const handler = apiHandler('mail-problems/list', async (event) => {
  const request = pageRequest(event);
  return listPageResponse(event, request, await listProblems(), mailProblemView);
});
