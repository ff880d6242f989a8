/** GET /api/escalation-exclusions/{id}/ (superusers) */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { exclusionView } from '../../shared/domain/escalation';
import { getExclusion } from '../../shared/store/escalation';

export const handler = apiHandler('escalation-exclusions/get', async (event) => {
  const exclusion = await getExclusion(idParam(event));
  if (!exclusion) throw new NotFound();
  return json(200, exclusionView(exclusion));
});
