/**
 * POST /api/tokens/ (staff): a new API token for the caller, or with `{"user": "<username>"}` for
 * anyone (superusers only). The key is in this answer and nowhere else, ever.
 */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { storedDateTime } from '../../shared/domain/datetime';
import {
  TOKEN_PREFIX_LENGTH,
  createdTokenView,
  hashTokenKey,
  newTokenKey,
  noSuchUser,
  tokenOwner,
  tooManyTokens,
} from '../../shared/domain/tokens';
import { createToken, TooManyTokens } from '../../shared/store/tokens';
import { findUserByUsername } from '../../shared/store/users';

export const handler = apiHandler('tokens/create', async (event) => {
  const caller = event.user!;
  const owner = tokenOwner(caller, await event.parseBody!());
  if (owner !== caller.username && !(await findUserByUsername(owner)))
    throw new ValidationError({ user: [noSuchUser(owner)] });
  const key = newTokenKey();
  const token = await createToken({
    user: owner,
    prefix: key.slice(0, TOKEN_PREFIX_LENGTH),
    created: storedDateTime(new Date()),
    key_hash: hashTokenKey(key),
  }).catch((error: unknown) => {
    throw error instanceof TooManyTokens ? new ValidationError({ non_field_errors: [tooManyTokens(owner)] }) : error;
  });
  return json(201, createdTokenView(token, key));
});
