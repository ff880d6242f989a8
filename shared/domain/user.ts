/**
 * User rules: creation (POST /api/users/: all five fields, Django's username and e-mail rules), the
 * changes a superuser may make (PATCH /api/users/{id}/ and the CLI), and how a user is shown.
 */
import type { ParsedBody } from './body';
import { ValidationError, type FieldErrors } from './errors';
import {
  MESSAGES,
  booleanField,
  emailField,
  fieldSchema,
  pythonType,
  textField,
  validateFields,
  type Field,
  type Parsed,
} from './fields';
import { storedDateTime } from './datetime';
import { MIN_PASSWORD_LENGTH, hashPassword } from './password';
import type { User, UserSummary } from './records';

const USERNAME = {
  pattern: /^[\p{L}\p{M}\p{N}_.@+-]+$/u,
  message: 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.',
};
export const DUPLICATE_USERNAME = 'A user with that username already exists.';
export const PASSWORD_TOO_SHORT =
  'This password is too short. ' + `It must contain at least ${MIN_PASSWORD_LENGTH} characters.`;

export const userFields = {
  first_name: textField({ required: true, maxLength: 150 }),
  last_name: textField({ required: true, maxLength: 150 }),
  username: textField({ required: true, maxLength: 150, match: USERNAME }),
  email: emailField({ required: true }),
  password: textField({
    required: true,
    maxLength: 4096,
    minLength: { length: MIN_PASSWORD_LENGTH, message: PASSWORD_TOO_SHORT },
  }),
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

/** At most this many queues per user: the record stays small, and so does a listing's union. */
export const MAX_USER_QUEUES = 100;

/** A list of queue ids (DRF's PrimaryKeyRelatedField with many=True); existence is checked against the store. */
const queueIds: Field<number[]> = {
  schema: fieldSchema((raw, ctx): number[] => {
    const problem = !Array.isArray(raw)
      ? `Expected a list of items but got type "${pythonType(raw)}".`
      : raw.length > MAX_USER_QUEUES
        ? `Ensure this field has no more than ${MAX_USER_QUEUES} elements.`
        : raw.find((v) => typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) !== undefined
          ? MESSAGES.pkType(pythonType(raw.find((v) => typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)))
          : undefined;
    if (problem) {
      ctx.issues.push({ code: 'custom', message: problem, input: raw });
      return [];
    }
    return [...new Set(raw as number[])].sort((a, b) => a - b);
  }),
  meta: { type: 'list', child: { type: 'integer' } },
  kind: 'other',
  nullable: false,
  required: false,
};

/** What a superuser may change of a user (never the username, the password or superuser status). */
export const userChangeFields = {
  first_name: textField({ maxLength: 150, allowBlank: true }),
  last_name: textField({ maxLength: 150, allowBlank: true }),
  email: emailField(),
  is_active: booleanField(),
  is_staff: booleanField(),
  queues: queueIds,
};

export type UserChanges = Parsed<typeof userChangeFields>;

export function parseUserChanges(body: ParsedBody): UserChanges {
  const { values, errors } = validateFields(userChangeFields, body.data, 'partial', body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return values;
}

/** The queue ids among `wanted` that are not queues: `{queues: [...]}` as DRF words a missing pk. */
export function missingQueueErrors(wanted: readonly number[], existing: ReadonlySet<number>): FieldErrors {
  const missing = wanted.find((id) => !existing.has(id));
  return missing === undefined ? {} : { queues: [MESSAGES.pkMissing(missing)] };
}

/** The user after `changes` (the record's other fields kept); undefined fields are not changed. */
export function applyUserChanges<U extends User>(user: U, changes: UserChanges): U {
  const next = { ...user };
  for (const [key, value] of Object.entries(changes))
    if (value !== undefined && value !== null) Object.assign(next, { [key]: value });
  return next;
}

/** A user as the users routes show one: never the password hash. */
export function userDetailView(user: UserSummary) {
  return {
    id: user.id,
    username: user.username,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    is_active: user.is_active,
    is_staff: user.is_staff,
    is_superuser: user.is_superuser,
    queues: user.queues ?? [],
  };
}

/** The filters of GET /api/users/: `is_staff`, `is_active` (DRF booleans), `email` (exact, any case). */
export interface UserFilter {
  is_staff?: boolean;
  is_active?: boolean;
  email?: string;
}

/** Reads the filters; a boolean that is none of DRF's spellings is 400 on its name. */
export function parseUserFilter(query: Record<string, string | undefined>): UserFilter {
  const filter: UserFilter = {};
  const errors: FieldErrors = {};
  for (const name of ['is_staff', 'is_active'] as const) {
    const raw = query[name];
    if (raw === undefined || raw === '') continue;
    const value = parseBooleanFilter(raw);
    if (value === undefined) errors[name] = [MESSAGES.boolean];
    else filter[name] = value;
  }
  if (query.email) filter.email = query.email.trim().toLowerCase();
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return filter;
}

const parseBooleanFilter = (raw: string) =>
  ({ true: true, '1': true, false: false, '0': false })[raw.trim().toLowerCase()];

export function matchesUserFilter(user: UserSummary, filter: UserFilter): boolean {
  return (
    (filter.is_staff === undefined || user.is_staff === filter.is_staff) &&
    (filter.is_active === undefined || user.is_active === filter.is_active) &&
    (filter.email === undefined || user.email.toLowerCase() === filter.email)
  );
}
