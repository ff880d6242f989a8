/**
 * DELETE /api/mail/templates/{kind}/?queue=<id> (superusers): back to the default (or, for a queue, to the global
 * override).
 */
import { apiHandler } from '../../shared/middleware';
import { noContent, queryParam } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { kindParam, queueQuery } from '../../shared/domain/template-overrides';
import { deleteTemplateOverride } from '../../shared/store/template-overrides';

export const handler = apiHandler('mail-templates/delete', async (event) => {
  const kind = kindParam(event.pathParameters?.kind);
  if (!(await deleteTemplateOverride(kind, queueQuery(queryParam(event, 'queue'))))) throw new NotFound();
  return noContent();
});
