/**
 * POST /api/webhook-deliveries/{id}/redeliver (staff): a new round of attempts for one delivery,
 * with the same `webhook-id` and body (receivers that deduplicate by id see the same message).
 * Answers 202 with the delivery as queued; 409 while its attempts are still under way (a second
 * round alongside would post twice and spend the schedule twice as fast), unless it is stuck: if
 * queueing fails after the delivery was set pending, it can be sent again once overdue.
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { Conflict, NotFound } from '../../shared/domain/errors';
import { DELIVERY_ID, deliveryView, mayRedeliver } from '../../shared/domain/webhooks';
import { getDelivery, requeueDelivery } from '../../shared/store/deliveries';
import { deliveryQueue } from '../../shared/webhooks/queue';
import { mayAccessDelivery } from '../../shared/middleware/queue-access';

export const handler = apiHandler('webhook-deliveries/redeliver', async (event) => {
  const id = event.pathParameters?.id ?? '';
  const current = DELIVERY_ID.test(id) ? await getDelivery(id) : undefined;
  if (!current || !(await mayAccessDelivery(event, current))) throw new NotFound();
  if (current.event === 'subscription.disabled')
    throw new Conflict('This entry records a subscription being disabled: it has nothing to send.');
  if (!current.body)
    throw new Conflict('This delivery kept no payload (it was too large to store), so it cannot be sent again.');
  const stillPending = () =>
    new Conflict('This delivery is still being attempted; send it again once it has succeeded or failed.');
  const now = new Date();
  if (!mayRedeliver(current, now)) throw stillPending();
  const delivery = await requeueDelivery(id, now);
  if (!delivery) throw (await getDelivery(id)) ? stillPending() : new NotFound(); // another redeliver won the race
  await deliveryQueue().enqueue(delivery.id, 0);
  return json(202, deliveryView(delivery));
});
