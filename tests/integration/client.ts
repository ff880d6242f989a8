/** A small HTTP client for the integration tests: the local runtime over real HTTP. */
import { inject } from 'vitest';

export const API = inject('apiUrl');
export const ADMIN = inject('admin');

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export const ADMIN_AUTH = basic(ADMIN.username, ADMIN.password);

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export async function call(
  method: string,
  path: string,
  options: { json?: unknown; form?: FormData; body?: string | Buffer; contentType?: string; auth?: string | null; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== null) headers.authorization = options.auth ?? ADMIN_AUTH;
  let body: RequestInit['body'];
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) {
    body = options.form;
  } else if (options.body !== undefined) {
    body = options.body as RequestInit['body'];
    if (options.contentType) headers['content-type'] = options.contentType;
  }
  const res = await fetch(`${API}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export function form(fields: Record<string, string | number | boolean>, files: { field: string; name: string; type?: string; content: string | Buffer }[] = []): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, String(v));
  for (const f of files) data.append(f.field, new Blob([f.content], { type: f.type ?? 'application/octet-stream' }), f.name);
  return data;
}

let counter = 0;
/** A unique suffix so tests never collide on shared data. */
export function unique(prefix = 'x'): string {
  return `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export const VALID_TICKET = {
  queue: 1,
  title: 'Test title',
  description: 'Test description\nMulti lines',
  submitter_email: 'test@mail.com',
  priority: 4,
};

export async function createTicket(overrides: Record<string, unknown> = {}): Promise<Reply> {
  const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, ...overrides } });
  if (reply.status !== 201) throw new Error(`ticket not created: ${reply.status} ${reply.text}`);
  return reply;
}

/** Creates a user through the API (as admin) and returns its Basic header. */
export async function createUser(overrides: Record<string, string> = {}): Promise<{ username: string; auth: string; email: string }> {
  const username = overrides.username ?? unique('user');
  const password = overrides.password ?? 'a-password-1';
  const email = overrides.email ?? `${username}@example.com`;
  const reply = await call('POST', '/api/users/', {
    json: { first_name: 'First', last_name: 'Last', username, email, password, ...overrides },
  });
  if (reply.status !== 201) throw new Error(`user not created: ${reply.status} ${reply.text}`);
  return { username, email, auth: basic(username, password) };
}
