/**
 * PATCH /api/users/{id}/ (superuser): names, e-mail, `is_active`, `is_staff`, `queues`. The same
 * change the CLI makes (store/user-changes.ts): deactivating revokes the user's tokens.
 */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { parseUserChanges, userDetailView } from '../../shared/domain/user';
import { changeUser } from '../../shared/store/user-changes';
import { findUserByUsername, getUserSummary } from '../../shared/store/users';

export const handler = apiHandler('users/update', async (event) => {
  const summary = await getUserSummary(idParam(event));
  const user = summary && (await findUserByUsername(summary.username));
  if (!user) throw new NotFound();
  const changes = parseUserChanges(await event.parseBody!());
  return json(200, userDetailView(await changeUser(user, changes)));
});
