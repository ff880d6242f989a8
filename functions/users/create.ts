/** POST /api/users/: a new active, non-staff user; answers the four non-secret fields. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { DUPLICATE_USERNAME, newUserRecord, parseUserBody, userView } from '../../shared/domain/user';
import { DuplicateUsername, createUser } from '../../shared/store/users';

export const handler = apiHandler('users/create', async (event) => {
  const { password, ...fields } = parseUserBody(await event.parseBody!());
  try {
    const user = await createUser(await newUserRecord(fields, password));
    return json(201, userView(user));
  } catch (error) {
    if (error instanceof DuplicateUsername) throw new ValidationError({ username: [DUPLICATE_USERNAME] });
    throw error;
  }
});
