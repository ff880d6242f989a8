/**
 * POST /api/ignored-senders/ (superusers): an address or pattern, the queues it is for (none: all), keep_in_mailbox.
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { storedDateTime } from '../../shared/domain/datetime';
import { missingPk } from '../../shared/domain/escalation';
import { ignoredSenderView, parseIgnoredSenderBody, type IgnoredSender } from '../../shared/domain/ignored-senders';
import { createIgnoredSender } from '../../shared/store/ignored-senders';
import { firstMissingQueue } from '../../shared/store/queues';

export const handler = apiHandler('ignored-senders/create', async (event) => {
  const fields = parseIgnoredSenderBody(await event.parseBody!(), 'create') as Omit<IgnoredSender, 'id' | 'date'>;
  const queues = fields.queues ?? [];
  const missing = await firstMissingQueue(queues);
  if (missing !== undefined) throw new ValidationError({ queues: [missingPk(missing)] });
  const rule = await createIgnoredSender({
    name: fields.name,
    email_address: fields.email_address,
    queues,
    keep_in_mailbox: fields.keep_in_mailbox ?? false,
    date: storedDateTime(new Date()),
  });
  return json(201, ignoredSenderView(rule));
});
