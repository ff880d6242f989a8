/** POST /api/users/: a new active, non-staff user; answers the four non-secret fields. */
import { apiHandler } from '../../shared/middleware';
import { json } from '../../shared/middleware/http';
import { ValidationError } from '../../shared/domain/errors';
import { hashPassword } from '../../shared/domain/password';
import { DUPLICATE_USERNAME, parseUserBody, userView } from '../../shared/domain/user';
import { storedDateTime } from '../../shared/domain/datetime';
import { DuplicateUsername, createUser } from '../../shared/store/users';

export const handler = apiHandler('users/create', async (event) => {
  const { password, ...fields } = parseUserBody(await event.parseBody!());
  try {
    const user = await createUser({
      ...fields,
      is_staff: false,
      is_superuser: false,
      is_active: true,
      password_hash: await hashPassword(password),
      date_joined: storedDateTime(new Date()),
    });
    return json(201, userView(user));
  } catch (error) {
    if (error instanceof DuplicateUsername) throw new ValidationError({ username: [DUPLICATE_USERNAME] });
    throw error;
  }
});
