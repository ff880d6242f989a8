/**
 * GET /api/mail/templates/{kind}/?queue=<id> (superusers): the template that kind's mails are rendered with, and what
 * is overridden.
 */
import { apiHandler } from '../../shared/middleware';
import { json, queryParam } from '../../shared/middleware/http';
import { effectiveTemplateView, kindParam, queueQuery } from '../../shared/domain/template-overrides';
import { listTemplateOverrides } from '../../shared/store/template-overrides';

export const handler = apiHandler('mail-templates/get', async (event) => {
  const kind = kindParam(event.pathParameters?.kind);
  const queue = queueQuery(queryParam(event, 'queue'));
  return json(200, effectiveTemplateView(await listTemplateOverrides({ fresh: true }), kind, queue));
});
