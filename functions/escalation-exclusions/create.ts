/** POST /api/escalation-exclusions/ (superusers): a name, a date and the queues it is for (none: all). */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { exclusionView, missingPk, parseExclusionBody, type EscalationExclusion } from '../../shared/domain/escalation';
import { createExclusions } from '../../shared/store/escalation';
import { firstMissingQueue } from '../../shared/store/queues';

export const handler = apiHandler('escalation-exclusions/create', async (event) => {
  const fields = parseExclusionBody(await event.parseBody!(), 'create') as Omit<EscalationExclusion, 'id'>;
  const queues = fields.queues ?? [];
  const missing = await firstMissingQueue(queues);
  if (missing !== undefined) throw new ValidationError({ queues: [missingPk(missing)] });
  const [made] = await createExclusions([{ name: fields.name, date: fields.date, queues }]);
  return json(201, exclusionView(made!));
});
