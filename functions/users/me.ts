/** GET /api/users/me/ (anyone signed in): the caller, as authentication read them (no further read). */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { userDetailView } from '../../shared/domain/user';

export const handler = apiHandler('users/me', (event) => json(200, userDetailView(event.user!)));
