/**
 * The user commands: create-user, set-password, deactivate-user, activate-user, list-users.
 * Passwords come from a prompt without echo, or from the first line of standard input when it is
 * not a terminal; never from the command line.
 */
import type { Field } from '../shared/domain/fields';
import { MIN_PASSWORD_LENGTH } from '../shared/domain/password';
import type { User, UserSummary } from '../shared/domain/records';
import { command, Failure, UsageError, unlessDuplicate, type Context } from './command';
import { domain, validFields } from './rules';
import { promptHidden, readFirstLine, show, showList, yesNo } from './terminal';

/** How the command line names each field in a refusal. */
const USER_NAMES = {
  username: 'username',
  email: '--email',
  first_name: '--first-name',
  last_name: '--last-name',
  password: 'password',
};

const PASSWORD_NOTE =
  `The password is asked for twice without echo when standard input is a terminal; otherwise it is the ` +
  `first line of standard input. It is never taken from the command line. At least ${MIN_PASSWORD_LENGTH} characters.`;

/** The API's password field: trimmed, no NUL, at least MIN_PASSWORD_LENGTH and at most 4096 characters. */
const checkPassword = (raw: string) =>
  validFields('Invalid password', USER_NAMES, { password: domain.userFields.password }, { password: raw })
    .password as string;

async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const line = await readFirstLine();
    if (line === undefined) {
      throw new UsageError(
        'No password on standard input: type it at the prompt (in a terminal) or pipe it as the first line.',
      );
    }
    return checkPassword(line);
  }
  for (let attempt = 1; ; attempt++) {
    const first = await promptHidden('Password: ');
    try {
      const password = checkPassword(first);
      const again = await promptHidden('Password (again): ');
      if (again.trim() !== password) throw new Failure("The passwords didn't match.");
      return password;
    } catch (error) {
      if (!(error instanceof Failure) || attempt >= 3) throw error;
      process.stderr.write(`${error.message}\n`);
    }
  }
}

/** The username argument, checked with the API's username rules. */
export const usernameArgument = (ctx: Context) =>
  validFields('Invalid user', USER_NAMES, { username: domain.userFields.username }, { username: ctx.args[0] })
    .username as string;

/** The user named `username`; a Failure when there is none. */
export async function existingUser(username: string): Promise<User> {
  const { findUserByUsername } = await import('../shared/store/users');
  const user = await findUserByUsername(username);
  if (!user) throw new Failure(`No user named "${username}".`);
  return user;
}

/** A user without anything secret. */
function userSummary(user: UserSummary | User) {
  const { id, username, first_name, last_name, email, is_active, is_staff, is_superuser } = user;
  return { id, username, first_name, last_name, email, is_active, is_staff, is_superuser };
}

const roleOf = (user: User) => (user.is_superuser ? 'superuser' : user.is_staff ? 'staff' : 'not staff');

export const createUser = command({
  name: 'create-user',
  args: ['username'],
  summary: 'create a user (password prompted or read from stdin)',
  description:
    'Creates an active user. --staff lets it use the API (every route needs staff); --superuser implies --staff ' +
    "(as Django's createsuperuser). Names are optional here, unlike POST /api/users/.\n" +
    PASSWORD_NOTE,
  options: {
    email: { type: 'string', value: 'EMAIL', help: 'e-mail address (required)' },
    'first-name': { type: 'string', value: 'NAME', help: 'first name (default: empty)' },
    'last-name': { type: 'string', value: 'NAME', help: 'last name (default: empty)' },
    staff: { type: 'boolean', help: 'staff: may use the API' },
    superuser: { type: 'boolean', help: 'superuser (and staff): may also manage queues and custom fields' },
  },
  required: ['email'],
  examples: [
    'npm run helpdesk -- create-user alice --email alice@example.com --superuser',
    'printf \'%s\\n\' "$PASSWORD" | npm run helpdesk -- create-user bot --email bot@example.com --staff',
  ],
  async prepare(ctx) {
    const data: Record<string, unknown> = { username: ctx.args[0], email: ctx.options.email };
    // Names are optional here (Django's createsuperuser does not ask for them): an empty one is none.
    if (ctx.options['first-name']) data.first_name = ctx.options['first-name'];
    if (ctx.options['last-name']) data.last_name = ctx.options['last-name'];
    const optional = (field: Field): Field => ({ ...field, required: false });
    const fields = {
      first_name: optional(domain.userFields.first_name),
      last_name: optional(domain.userFields.last_name),
      username: domain.userFields.username,
      email: domain.userFields.email,
    };
    const values = validFields('Invalid user', USER_NAMES, fields, data) as {
      username: string;
      email: string;
      first_name?: string;
      last_name?: string;
    };
    const superuser = ctx.options.superuser === true;
    const staff = superuser || ctx.options.staff === true;
    const password = await readPassword();
    return async () => {
      const [store, { newUserRecord }] = await Promise.all([
        import('../shared/store/users'),
        import('../shared/domain/user'),
      ]);
      const duplicate = `Cannot create user "${values.username}": ${domain.DUPLICATE_USERNAME}`;
      const record = await newUserRecord(values, password, superuser ? 'superuser' : staff ? 'staff' : 'user');
      const user = await unlessDuplicate(store.DuplicateUsername, duplicate, () => store.createUser(record));
      show(ctx, userSummary(user), `Created user "${user.username}" (id ${user.id}, ${roleOf(user)}).`);
    };
  },
});

export const setPassword = command({
  name: 'set-password',
  args: ['username'],
  summary: "set a user's password (prompted or read from stdin)",
  description: `Replaces the password of an existing user (warm API functions notice within 5 s).\n${PASSWORD_NOTE}`,
  examples: ['npm run helpdesk -- set-password alice'],
  async prepare(ctx) {
    const username = usernameArgument(ctx);
    const password = await readPassword();
    return async () => {
      const [{ saveUser }, { hashPassword }] = await Promise.all([
        import('../shared/store/users'),
        import('../shared/domain/password'),
      ]);
      const user = await existingUser(username);
      await saveUser({ ...user, password_hash: await hashPassword(password) });
      show(ctx, { username: user.username, password_changed: true }, `Password changed for user "${user.username}".`);
    };
  },
});

/** deactivate-user and activate-user: the same write, to false or to true. */
function setActive(active: boolean) {
  return (ctx: Context) => {
    const username = usernameArgument(ctx);
    return async () => {
      // The same change as PATCH /api/users/{id}/ (a deactivation revokes the user's tokens).
      const { changeUser } = await import('../shared/store/user-changes');
      const user = await changeUser(await existingUser(username), { is_active: active });
      show(ctx, userSummary(user), `User "${user.username}" is now ${active ? 'active' : 'inactive'}.`);
    };
  };
}

export const deactivateUser = command({
  name: 'deactivate-user',
  args: ['username'],
  summary: 'make a user inactive (it can no longer authenticate)',
  description:
    'Marks a user inactive, as unticking "active" in Django\'s admin (and as PATCH /api/users/{id}/ with ' +
    'is_active false): its password stops working (warm API functions notice within 5 s) and its API tokens are ' +
    'revoked. Its tickets and followups stay; activate-user makes it active again (with new tokens to create).',
  examples: ['npm run helpdesk -- deactivate-user alice'],
  prepare: setActive(false),
});

export const activateUser = command({
  name: 'activate-user',
  args: ['username'],
  summary: 'make an inactive user active again',
  description: 'Marks a user active again: its password works again (tokens revoked on deactivation stay revoked).',
  examples: ['npm run helpdesk -- activate-user alice'],
  prepare: setActive(true),
});

export const listUsers = command({
  name: 'list-users',
  summary: 'list users',
  description: 'Lists every user (never a password hash).',
  examples: ['npm run helpdesk -- list-users --json'],
  async run(ctx) {
    const { listUsers } = await import('../shared/store/users');
    showList(
      ctx,
      (await listUsers()).map(userSummary),
      'No users.',
      ['ID', 'USERNAME', 'EMAIL', 'FIRST NAME', 'LAST NAME', 'ACTIVE', 'STAFF', 'SUPERUSER'],
      (u) => [
        u.id,
        u.username,
        u.email,
        u.first_name,
        u.last_name,
        yesNo(u.is_active),
        yesNo(u.is_staff),
        yesNo(u.is_superuser),
      ],
    );
  },
});
