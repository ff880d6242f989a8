/**
 * DELETE /api/tokens/{id}/ (staff): revokes one of the caller's tokens (a superuser: anyone's).
 * Someone else's token is 404, as if it did not exist. Warm functions that verified the key may
 * accept it until their credential cache entry ends (at most 60 s).
 */
import { apiHandler, idParam } from '../../shared/middleware';
import { noContent } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { mayManageToken } from '../../shared/domain/tokens';
import { deleteToken, getToken } from '../../shared/store/tokens';

export const handler = apiHandler('tokens/revoke', async (event) => {
  const token = await getToken(idParam(event));
  if (!token || !mayManageToken(event.user!, token)) throw new NotFound();
  await deleteToken(token);
  return noContent();
});
