/** GET /api/ignored-senders/{id}/ (superusers) */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { ignoredSenderView } from '../../shared/domain/ignored-senders';
import { getIgnoredSender } from '../../shared/store/ignored-senders';

export const handler = apiHandler('ignored-senders/get', async (event) => {
  const rule = await getIgnoredSender(idParam(event));
  if (!rule) throw new NotFound();
  return json(200, ignoredSenderView(rule));
});
