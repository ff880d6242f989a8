/**
 * GET /api/webhooks/ (superusers): the environment's receivers (read-only), then the subscriptions, oldest first;
 * paginated.
 */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { subscriptionView } from '../../shared/domain/subscriptions';
import { listSubscriptions } from '../../shared/store/subscriptions';
import { environmentSubscriptions } from './lookup';

export const handler = apiHandler('webhook-subscriptions/list', async (event) => {
  const request = pageRequest(event);
  const all = [...environmentSubscriptions(), ...(await listSubscriptions()).map(subscriptionView)];
  return listPageResponse(event, request, all, (view) => view);
});
