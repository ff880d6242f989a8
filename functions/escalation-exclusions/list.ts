/** GET /api/escalation-exclusions/ (superusers): every exclusion, paginated. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { exclusionView } from '../../shared/domain/escalation';
import { listExclusions } from '../../shared/store/escalation';

export const handler = apiHandler('escalation-exclusions/list', async (event) => {
  const request = pageRequest(event);
  return listPageResponse(event, request, await listExclusions(), exclusionView);
});
