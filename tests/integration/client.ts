/** A small HTTP client for the integration tests: the local runtime over real HTTP. */
import { request as httpRequest } from 'node:http';
import { expect, inject } from 'vitest';
import { checkResponse } from '../openapi-check';
import type { Json } from '../json';

export type { Json } from '../json';

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
  body: Json;
}

/** One list per process, whichever copy of this module a file imports (the fetch wrapper holds it). */
const CONTRACT_FAILURES = Symbol.for('helpdesk.tests.contractFailures');

/**
 * Every response is checked against the OpenAPI document (status documented for the operation,
 * JSON body valid against its schema): fetched ones by the setup file (openapi-setup.ts), which
 * wraps `fetch`, and those of `rawRequest` here. Problems collect here; the setup file fails the
 * test that made the call, after it ran.
 */
export const contractFailures: string[] = ((globalThis as typeof globalThis & { [CONTRACT_FAILURES]?: string[] })[
  CONTRACT_FAILURES
] ??= []);

function checkContract(method: string, url: string, reply: Reply): Reply {
  contractFailures.push(
    ...checkResponse({
      method,
      url,
      status: reply.status,
      contentType: reply.headers.get('content-type'),
      text: reply.text,
      body: reply.body,
    }),
  );
  return reply;
}

export interface CallOptions {
  json?: unknown;
  form?: FormData;
  body?: string | Buffer;
  contentType?: string;
  auth?: string | null;
  headers?: Record<string, string>;
  /** Another runtime's URL (default: the shared one). */
  base?: string;
}

export async function call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
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
  const url = `${options.base ?? API}${path}`;
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export function form(
  fields: Record<string, string | number | boolean>,
  files: { field: string; name: string; type?: string; content: string | Buffer }[] = [],
): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, String(v));
  for (const f of files)
    data.append(f.field, new Blob([f.content], { type: f.type ?? 'application/octet-stream' }), f.name);
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

export async function createTicket(overrides: Record<string, unknown> = {}, base?: string): Promise<Reply> {
  const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, ...overrides }, base });
  if (reply.status !== 201) throw new Error(`ticket not created: ${reply.status} ${reply.text}`);
  return reply;
}

/** Creates a user through the API (as admin) and returns its Basic header. */
export async function createUser(
  overrides: Record<string, string> = {},
  base?: string,
): Promise<{ username: string; auth: string; email: string }> {
  const username = overrides.username ?? unique('user');
  const password = overrides.password ?? 'a-password-1';
  const email = overrides.email ?? `${username}@example.com`;
  const reply = await call('POST', '/api/users/', {
    json: { first_name: 'First', last_name: 'Last', username, email, password, ...overrides },
    base,
  });
  if (reply.status !== 201) throw new Error(`user not created: ${reply.status} ${reply.text}`);
  return { username, email, auth: basic(username, password) };
}

/**
 * The helpers bound to another runtime, for a test file that starts its own (spawn-runtime.ts) and
 * whose admin has the shared runtime's credentials.
 */
export function clientFor(base: string) {
  return {
    url: base,
    call: (method: string, path: string, options: CallOptions = {}) => call(method, path, { ...options, base }),
    createTicket: (overrides: Record<string, unknown> = {}) => createTicket(overrides, base),
    createUser: (overrides: Record<string, string> = {}) => createUser(overrides, base),
    countsSettled: () => countsSettled(base),
  };
}

/**
 * Waits until the ticket counts hold exactly the tickets that exist: the list's `count` (from the
 * counts, which follow the table's stream) equals the tickets listed (read from the table). Only
 * for a runtime no other test file writes tickets to.
 */
export async function countsSettled(base?: string): Promise<number> {
  const settled = async () => {
    const last = (await call('GET', '/api/tickets/?page_size=100&page=last', { base })).body;
    const page = last.previous ? Number(new URL(last.previous).searchParams.get('page') ?? 1) : 0;
    if (last.count !== page * 100 + last.results.length) return undefined;
    // A count short by whole pages passes that check too (its last page is then full): the list
    // must also end where the count says, with the newest ticket.
    const newest = (await call('GET', '/api/tickets/?ordering=-id&page_size=1', { base })).body.results[0];
    return newest?.id === last.results.at(-1)?.id ? (last.count as number) : undefined;
  };
  let count: number | undefined;
  await expect.poll(async () => (count = await settled()), { timeout: 60_000, interval: 25 }).toBeDefined();
  return count!;
}

/** The bootstrap creates the admin first, so it has user id 1 (upstream's observed examples too). */
export const ADMIN_ID = 1;

export { ATTACHMENT_KEYS, FOLLOWUP_KEYS, TICKET_KEYS } from '../wire-shapes';

/** ISO 8601 in UTC with `Z`; six fraction digits when non-zero, none when zero (docs/upstream.md: responses). */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;

export const SECURITY_HEADERS = {
  vary: 'Accept',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** Every ticket the list answers for `query` (all pages, 100 per page), of the shared runtime or `base`. */
export async function listAll(query = '', base?: string): Promise<Json[]> {
  const tickets: Json[] = [];
  for (let page = 1; ; page++) {
    const reply = await call('GET', `/api/tickets/?page_size=100&page=${page}${query ? `&${query}` : ''}`, { base });
    if (reply.status === 404 && page > 1) break; // the list shrank meanwhile
    if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${reply.text}`);
    tickets.push(...reply.body.results);
    if (!reply.body.next) break;
  }
  return tickets;
}

/**
 * The highest ticket id stored (0 when none). `ordering=-id` reads the ticket index, which the
 * ticket's own write keeps: a ticket stored a moment ago is seen. (The last page by number follows
 * the count the stream keeps, so it could miss one.)
 */
export async function maxTicketId(): Promise<number> {
  const reply = await call('GET', '/api/tickets/?ordering=-id&page_size=1');
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${reply.text}`);
  return reply.body.results[0]?.id ?? 0;
}

/**
 * Runs a request that must store nothing and checks that no ticket appeared meanwhile. Other test
 * files create tickets at the same time, so a window in which someone else did is tried again.
 */
export async function expectNoNewTicket(request: () => Promise<Reply>): Promise<Reply> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const before = await maxTicketId();
    const reply = await request();
    const after = await maxTicketId();
    if (after <= before) return reply;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
  }
  throw new Error('could not observe a quiet window: tickets kept appearing');
}

/** Follows an attachment's `file` URL as the API answers it (302), then fetches the presigned target. */
export async function download(
  file: string,
  auth: string = ADMIN_AUTH,
): Promise<{ redirect: Response; target: Response; bytes: Buffer }> {
  const redirect = await fetch(file, { headers: { authorization: auth }, redirect: 'manual' });
  const location = redirect.headers.get('location');
  if (redirect.status !== 302 || !location) throw new Error(`no redirect: ${redirect.status}`);
  const target = await fetch(location);
  return { redirect, target, bytes: Buffer.from(await target.arrayBuffer()) };
}

/**
 * A multipart body built byte for byte, as Django's test client sends it: unlike FormData, values
 * keep their newlines as sent (the browser encoding turns "\n" into "\r\n"). Use with call()'s
 * `body` and `contentType`.
 */
export function multipart(
  fields: Record<string, string | number | boolean>,
  /** `type: null` sends the file part without a Content-Type header. */
  files: { field: string; name: string; type?: string | null; content: string | Buffer }[] = [],
): { body: Buffer; contentType: string } {
  const boundary = `----boundary${unique()}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${String(value)}\r\n`),
    );
  }
  for (const f of files) {
    const type = f.type === null ? '' : `Content-Type: ${f.type ?? 'application/octet-stream'}\r\n`;
    const disposition = `Content-Disposition: form-data; name="${f.field}"; filename="${f.name}"`;
    const head = `--${boundary}\r\n${disposition}\r\n${type}\r\n`;
    parts.push(Buffer.from(head), Buffer.from(f.content), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * A request over node:http that reports the response even when the server answers before reading
 * the whole body and then closes the connection (what a 413 does; fetch reports EPIPE instead).
 */
export function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const req = httpRequest(
      `${API}${path}`,
      { method, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          const responseHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') responseHeaders.set(k, v);
          resolve(
            checkContract(method, `${API}${path}`, {
              status: res.statusCode ?? 0,
              headers: responseHeaders,
              text,
              body: parsed,
            }),
          );
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Writing the rest of the body fails once the server has answered and closed: not our concern.
      if (!['EPIPE', 'ECONNRESET'].includes(error.code ?? '')) reject(error);
    });
    req.on('close', () => {
      if (!responded) reject(new Error('connection closed without a response'));
    });
    req.end(body);
  });
}

/**
 * The exact representation upstream answers for a ticket created from VALID_TICKET (case 5) by
 * the admin: ids and the opening followup's date are taken from the reply itself.
 */
export function expectedCase5Ticket(reply: { id: number; followup_set: { id: number; date: string }[] }) {
  const opening = reply.followup_set[0]!;
  return {
    id: reply.id,
    queue: 1,
    title: 'Test title',
    description: 'Test description\nMulti lines',
    resolution: null,
    submitter_email: 'test@mail.com',
    assigned_to: null,
    status: 1,
    on_hold: false,
    priority: 4,
    due_date: null,
    merged_to: null,
    followup_set: [
      {
        id: opening.id,
        ticket: reply.id,
        user: ADMIN_ID,
        title: 'Ticket Opened',
        comment: 'Test description\nMulti lines',
        public: true,
        new_status: null,
        time_spent: null,
        followupattachment_set: [],
        date: opening.date,
        message_id: null,
      },
    ],
  };
}
