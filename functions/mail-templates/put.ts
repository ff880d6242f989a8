/**
 * PUT /api/mail/templates/{kind}/ (superusers): overrides a kind's subject, text and/or HTML, for
 * every queue or for `queue`; checked to render before it is kept. The sender uses it within a minute.
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { storedDateTime } from '../../shared/domain/datetime';
import { ValidationError } from '../../shared/domain/errors';
import { MESSAGES } from '../../shared/domain/fields';
import { kindParam, parseTemplateOverride, templateOverrideView } from '../../shared/domain/template-overrides';
import { getQueue } from '../../shared/store/queues';
import { saveTemplateOverride } from '../../shared/store/template-overrides';

export const handler = apiHandler('mail-templates/put', async (event) => {
  const kind = kindParam(event.pathParameters?.kind);
  const override = parseTemplateOverride(kind, await event.parseBody!(), storedDateTime(new Date()));
  if (override.queue !== null && !(await getQueue(override.queue)))
    throw new ValidationError({ queue: [MESSAGES.pkMissing(override.queue)] });
  await saveTemplateOverride(override);
  return json(200, templateOverrideView(override));
});
