/** GET /api/webhook-deliveries/{id}/ (staff): one delivery of the log. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { DELIVERY_ID, deliveryView } from '../../shared/domain/webhooks';
import { getDelivery } from '../../shared/store/deliveries';
import { mayAccessDelivery } from '../../shared/middleware/queue-access';

export const handler = apiHandler('webhook-deliveries/get', async (event) => {
  const id = event.pathParameters?.id ?? '';
  const delivery = DELIVERY_ID.test(id) ? await getDelivery(id) : undefined;
  if (!delivery || !(await mayAccessDelivery(event, delivery))) throw new NotFound();
  return json(200, deliveryView(delivery));
});
