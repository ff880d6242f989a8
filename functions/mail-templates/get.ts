/**
 * GET /api/mail/templates/{kind}/?queue=<id> (superusers): the template that kind's mails are rendered with, and what
 * is overridden.
 */
import { apiHandler } from '../../shared/middleware';
import { json, queryParam } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { MESSAGES } from '../../shared/domain/fields';
import { effectiveTemplateView, kindParam, queueQuery } from '../../shared/domain/template-overrides';
import { getQueue } from '../../shared/store/queues';
import { listTemplateOverrides } from '../../shared/store/template-overrides';

export const handler = apiHandler('mail-templates/get', async (event) => {
  const kind = kindParam(event.pathParameters?.kind);
  const queue = queueQuery(queryParam(event, 'queue'));
  // As the PUT: a queue that does not exist has no mails, and no template to show for them.
  const [overrides, queueFound] = await Promise.all([
    listTemplateOverrides({ fresh: true }),
    queue === null ? true : getQueue(queue),
  ]);
  if (!queueFound) throw new ValidationError({ queue: [MESSAGES.pkMissing(queue)] });
  return json(200, effectiveTemplateView(overrides, kind, queue));
});
