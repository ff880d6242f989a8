/** GET /api/users/{id}/ (staff): one user, never the password hash. */
import { apiHandler, idParam } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { userDetailView } from '../../shared/domain/user';
import { getUserSummary } from '../../shared/store/users';

export const handler = apiHandler('users/get', async (event) => {
  const user = await getUserSummary(idParam(event));
  if (!user) throw new NotFound();
  return json(200, userDetailView(user));
});
