/**
 * Changing a user, the one implementation behind PATCH /api/users/{id}/ and the CLI's user commands.
 * Apart from users.ts so that authentication (which every function bundles) does not load queues.
 */
import { ValidationError } from '../domain/errors';
import type { User } from '../domain/records';
import { applyUserChanges, missingQueueErrors, type UserChanges } from '../domain/user';
import { listQueues } from './queues';
import { revokeTokensOf } from './tokens';
import { saveUser } from './users';

/**
 * What PATCH /api/users/{id}/ and the CLI's activate-user, deactivate-user and set-user-queues do:
 * checks the queues named exist (400 on `queues`), saves the changed record, and when the user is
 * now inactive, revokes every API token of theirs (after the save: from then on a token of an
 * inactive user is refused anyway). Their tickets and followups stay.
 */
export async function changeUser(user: User, changes: UserChanges): Promise<User> {
  if (changes.queues?.length) {
    const errors = missingQueueErrors(changes.queues, new Set((await listQueues()).map((q) => q.id)));
    if (Object.keys(errors).length) throw new ValidationError(errors);
  }
  const next = applyUserChanges(user, changes);
  await saveUser(next);
  if (!next.is_active) await revokeTokensOf(next.username);
  return next;
}
