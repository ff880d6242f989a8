/** User creation rules (POST /api/users/): all five fields, Django's username and e-mail rules. */
import type { ParsedBody } from './body';
import { ValidationError } from './errors';
import { emailField, textField, validateFields, type Parsed } from './fields';
import { storedDateTime } from './datetime';
import { MIN_PASSWORD_LENGTH, hashPassword } from './password';
import type { User } from './records';

const USERNAME = {
  pattern: /^[\p{L}\p{M}\p{N}_.@+-]+$/u,
  message: 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.',
};
export const DUPLICATE_USERNAME = 'A user with that username already exists.';
export const PASSWORD_TOO_SHORT = `This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`;

export const userFields = {
  first_name: textField({ required: true, maxLength: 150 }),
  last_name: textField({ required: true, maxLength: 150 }),
  username: textField({ required: true, maxLength: 150, match: USERNAME }),
  email: emailField({ required: true }),
  password: textField({ required: true, maxLength: 4096, minLength: { length: MIN_PASSWORD_LENGTH, message: PASSWORD_TOO_SHORT } }),
};

export type NewUserInput = { [K in keyof Parsed<typeof userFields>]-?: string };

export function parseUserBody(body: ParsedBody): NewUserInput {
  const { values, errors } = validateFields(userFields, body.data, 'create', body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return values as NewUserInput;
}

/** The answer to a user creation: the four non-secret fields, in upstream's order. */
export function userView(user: Pick<User, 'first_name' | 'last_name' | 'username' | 'email'>) {
  return { first_name: user.first_name, last_name: user.last_name, username: user.username, email: user.email };
}

/** Who a new user is: a plain user (the only kind the API creates), staff, or a staff superuser. */
export type NewUserRole = 'user' | 'staff' | 'superuser';

/** The record of a new, active user joined now, its password hashed (the API, the CLI, the local admin). */
export async function newUserRecord(
  fields: { username: string; email: string; first_name?: string; last_name?: string },
  password: string,
  role: NewUserRole = 'user',
): Promise<Omit<User, 'id'>> {
  return {
    username: fields.username,
    first_name: fields.first_name ?? '',
    last_name: fields.last_name ?? '',
    email: fields.email,
    is_staff: role !== 'user',
    is_superuser: role === 'superuser',
    is_active: true,
    password_hash: await hashPassword(password),
    date_joined: storedDateTime(new Date()),
  };
}
