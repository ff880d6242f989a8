/** GET /api/users/ (staff): users in id order, filtered by `is_staff`, `is_active`, `email`; paginated. */
import { apiHandler } from '../../shared/middleware';
import { listPageResponse, pageRequest } from '../../shared/middleware/pages';
import { matchesUserFilter, parseUserFilter, userDetailView } from '../../shared/domain/user';
import { listUsers } from '../../shared/store/users';

export const handler = apiHandler('users/list', async (event) => {
  const request = pageRequest(event);
  const filter = parseUserFilter(event.queryStringParameters ?? {});
  const users = (await listUsers()).filter((user) => matchesUserFilter(user, filter));
  return listPageResponse(event, request, users, userDetailView);
});
