/**
 * Who may call what, route by route (upstream's permissions: staff routes by the `is_staff` flag,
 * `user_tickets` for any user): anonymous callers get 401, users who are not staff 403 on staff and
 * superuser routes, staff users who are not superusers 403 on superuser routes only. OPTIONS and
 * unsupported methods need the same. What each route must answer comes from a table written out
 * here, not from the route table the middleware enforces: a permission changed there fails here.
 *
 * A staff user who is not a superuser can only be made with the operator CLI, which works on a
 * data directory (not the shared runtime's in-memory one): so this file starts its own runtime on a
 * temporary directory, through which the CLI finds that runtime's engines and table (a table of its
 * own on the shared engines). Also upstream's case 14 (a staff user's user_tickets), which needs one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type Permission } from '../../shared/api/routes';
import { ADMIN_AUTH, basic, clientFor, type Reply } from './client';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';
import { runCli } from './table-cli';

const STAFF = { username: 'test2', password: 'staff-password-1', email: 'staff@example.com' };

let dataDir: string;
let engines: Record<string, string>;
let runtime: SpawnedRuntime | undefined;
let api: ReturnType<typeof clientFor>;
const callers: Record<'anonymous' | 'plain' | 'staff' | 'superuser', string | null> = {
  anonymous: null,
  plain: '',
  staff: '',
  superuser: ADMIN_AUTH,
};

/** Runs the operator CLI on this file's data directory. */
async function cli(args: string[], input = ''): Promise<{ code: number | null; output: string }> {
  // The runtime's endpoints and table are in the data directory; its region (its database in the
  // shared DynamoDB Local) is given here.
  const env: NodeJS.ProcessEnv = { ...process.env, HELPDESK_DATA_DIR: dataDir, AWS_REGION: engines.AWS_REGION };
  delete env.TABLE_NAME;
  const { code, stdout, stderr } = await runCli([...args, '--data-dir', dataDir], env, input);
  return { code, output: stdout + stderr };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'helpdesk-permissions-'));
  engines = onSharedEngines();
  runtime = await spawnApiRuntime({ ...engines, HELPDESK_DATA_DIR: dataDir });
  api = clientFor(runtime.url);
  const created = await cli(['create-user', STAFF.username, '--email', STAFF.email, '--staff'], `${STAFF.password}\n`);
  if (created.code !== 0)
    throw new Error(`could not create the staff user with the CLI (${created.code}):\n${created.output}`);
  callers.staff = basic(STAFF.username, STAFF.password);
  callers.plain = (await api.createUser({ email: 'plain@example.com' })).auth;
});

afterAll(async () => {
  await runtime?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Who passes a permission. */
const ALLOWED: Record<Permission, (keyof typeof callers)[]> = {
  authenticated: ['plain', 'staff', 'superuser'],
  staff: ['staff', 'superuser'],
  superuser: ['superuser'],
};

/** A path of the route with ids that do not exist, so that allowed calls change nothing (404 or 400). */
const concrete = (path: string) =>
  `${path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'name' ? 'no-such-field' : '99999999'))}/`;

async function send(method: string, path: string, auth: string | null): Promise<Reply> {
  const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  return api.call(method, path, { auth, ...(withBody ? { json: {} } : {}) });
}

function expectOutcome(reply: Reply, allowed: boolean, who: string, what: string): void {
  if (who === 'anonymous') {
    expect(reply.status, `${who} ${what}`).toBe(401);
    expect(reply.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="api"');
  } else if (!allowed) {
    expect(reply.status, `${who} ${what}`).toBe(403);
    expect(reply.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect(reply.headers.get('www-authenticate')).toBeNull();
  } else {
    expect([401, 403], `${who} ${what}: ${reply.status} ${reply.text}`).not.toContain(reply.status);
    expect(reply.status, `${who} ${what}`).toBeLessThan(500);
  }
}

/** Who may call each route: the expected outcomes, pinned (the route table must list the same routes). */
const EXPECTED: Record<string, Permission> = {
  'GET /api': 'authenticated',
  'GET /api/openapi.json': 'authenticated',
  'GET /api/docs': 'authenticated',
  'GET /api/docs/{asset}': 'authenticated',
  'GET /api/tickets': 'staff',
  'POST /api/tickets': 'staff',
  'GET /api/tickets/{id}': 'staff',
  'PUT /api/tickets/{id}': 'staff',
  'PATCH /api/tickets/{id}': 'staff',
  'DELETE /api/tickets/{id}': 'staff',
  'GET /api/tickets/{id}/attachments/{attachmentId}': 'staff',
  'GET /api/tickets/{id}/cc': 'staff',
  'POST /api/tickets/{id}/cc': 'staff',
  'DELETE /api/tickets/{id}/cc/{ccId}': 'staff',
  'GET /api/tickets/{id}/emails': 'staff',
  'GET /api/followups': 'staff',
  'POST /api/followups': 'staff',
  'GET /api/followups/{id}': 'staff',
  'PUT /api/followups/{id}': 'staff',
  'PATCH /api/followups/{id}': 'staff',
  'DELETE /api/followups/{id}': 'staff',
  'GET /api/followups-attachments': 'staff',
  'POST /api/followups-attachments': 'staff',
  'GET /api/followups-attachments/{id}': 'staff',
  'DELETE /api/followups-attachments/{id}': 'staff',
  'POST /api/users': 'staff',
  'GET /api/users': 'staff',
  'GET /api/users/me': 'authenticated',
  'GET /api/users/{id}': 'staff',
  'PATCH /api/users/{id}': 'superuser',
  'GET /api/user_tickets': 'authenticated',
  'GET /api/user_tickets/{id}': 'authenticated',
  'GET /api/tokens': 'staff',
  'POST /api/tokens': 'staff',
  'DELETE /api/tokens/{id}': 'staff',
  'GET /api/queues': 'superuser',
  'POST /api/queues': 'superuser',
  'GET /api/queues/{id}': 'superuser',
  'PATCH /api/queues/{id}': 'superuser',
  'DELETE /api/queues/{id}': 'superuser',
  'GET /api/mail/suppressions': 'superuser',
  'DELETE /api/mail/suppressions/{address}': 'superuser',
  'GET /api/mail/problems': 'superuser',
  'POST /api/mail/problems/{id}/release': 'superuser',
  'GET /api/mail/templates': 'superuser',
  'GET /api/mail/templates/{kind}': 'superuser',
  'PUT /api/mail/templates/{kind}': 'superuser',
  'DELETE /api/mail/templates/{kind}': 'superuser',
  'GET /api/custom-fields': 'superuser',
  'POST /api/custom-fields': 'superuser',
  'GET /api/custom-fields/{name}': 'superuser',
  'PATCH /api/custom-fields/{name}': 'superuser',
  'DELETE /api/custom-fields/{name}': 'superuser',
  'GET /api/webhook-deliveries': 'staff',
  'GET /api/webhook-deliveries/{id}': 'staff',
  'POST /api/webhook-deliveries/{id}/redeliver': 'staff',
  'GET /api/events': 'staff',
  'GET /api/webhooks': 'superuser',
  'POST /api/webhooks': 'superuser',
  'GET /api/webhooks/{id}': 'superuser',
  'PATCH /api/webhooks/{id}': 'superuser',
  'DELETE /api/webhooks/{id}': 'superuser',
  'POST /api/webhooks/{id}/rotate-secret': 'superuser',
  'POST /api/webhooks/{id}/ping': 'superuser',
  'GET /api/escalation-exclusions': 'superuser',
  'POST /api/escalation-exclusions': 'superuser',
  'GET /api/escalation-exclusions/{id}': 'superuser',
  'DELETE /api/escalation-exclusions/{id}': 'superuser',
  'GET /api/ignored-senders': 'superuser',
  'POST /api/ignored-senders': 'superuser',
  'GET /api/ignored-senders/{id}': 'superuser',
  'DELETE /api/ignored-senders/{id}': 'superuser',
  'GET /api/reports/time-spent': 'staff',
};
const ROUTES = Object.entries(EXPECTED).map(([route, permission]) => {
  const [method, path] = route.split(' ') as [string, string];
  return { method, path, permission };
});
const PATHS = [...new Set(ROUTES.map((r) => r.path))];
const permissionOf = (path: string) => ROUTES.find((r) => r.path === path)!.permission;

describe('every route refuses exactly the callers its permission excludes', () => {
  it('the route table has exactly the routes pinned here', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('the staff user made with the CLI is staff but not a superuser', async () => {
    expect((await api.call('GET', '/api/tickets/', { auth: callers.staff })).status).toBe(200);
    expect((await api.call('GET', '/api/queues/', { auth: callers.staff })).status).toBe(403);
  });

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_, route) => {
    for (const who of Object.keys(callers) as (keyof typeof callers)[]) {
      const reply = await send(route.method, concrete(route.path), callers[who]);
      expectOutcome(reply, ALLOWED[route.permission].includes(who), who, `${route.method} ${route.path}`);
    }
  });

  it.each(PATHS)('OPTIONS %s', async (path) => {
    for (const who of Object.keys(callers) as (keyof typeof callers)[]) {
      const reply = await send('OPTIONS', concrete(path), callers[who]);
      const allowed = ALLOWED[permissionOf(path)].includes(who);
      expectOutcome(reply, allowed, who, `OPTIONS ${path}`);
      if (allowed) expect(reply.status, `${who} OPTIONS ${path}`).toBe(200);
    }
  });

  it.each(PATHS)('an unsupported method on %s: 401, 403, then 405', async (path) => {
    const methods = new Set(ROUTES.filter((r) => r.path === path).map((r) => r.method));
    const other = ['PUT', 'DELETE', 'POST', 'PATCH'].find((m) => !methods.has(m))!;
    for (const who of Object.keys(callers) as (keyof typeof callers)[]) {
      const reply = await send(other, concrete(path), callers[who]);
      const allowed = ALLOWED[permissionOf(path)].includes(who);
      expectOutcome(reply, allowed, who, `${other} ${path}`);
      if (allowed) {
        expect(reply.status, `${who} ${other} ${path}`).toBe(405);
        expect(reply.body).toEqual({ detail: `Method "${other}" not allowed.` });
      }
    }
  });
});

describe('superusers', () => {
  it("create the first queue of a fresh runtime (next to the bootstrap's queue 1) where staff may not", async () => {
    const refused = await api.call('POST', '/api/queues/', {
      auth: callers.staff,
      json: { title: 'First', slug: 'first' },
    });
    expect(refused.status).toBe(403);
    const created = await api.call('POST', '/api/queues/', { json: { title: 'First', slug: 'first' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: 2,
      title: 'First',
      slug: 'first',
      email_address: null,
      new_ticket_cc: null,
      updated_ticket_cc: null,
      disabled_mail: [],
      escalate_days: null,
      allow_public_submission: false,
      locale: null,
    });
    const list = await api.call('GET', '/api/queues/');
    expect(list.body.results).toEqual([
      {
        id: 1,
        title: 'Support',
        slug: 'support',
        email_address: null,
        new_ticket_cc: null,
        updated_ticket_cc: null,
        disabled_mail: [],
        escalate_days: null,
        allow_public_submission: false,
        locale: null,
      },
      created.body,
    ]);
  });
});

describe('staff users who are not superusers', () => {
  it('may use every ticket, followup, attachment and user operation', async () => {
    const auth = callers.staff!;
    const ticket = await api.call('POST', '/api/tickets/', {
      auth,
      json: { queue: 1, title: 'By staff', description: 'd', submitter_email: 'x@example.com' },
    });
    expect(ticket.status).toBe(201);
    expect(ticket.body.followup_set[0].user).not.toBe(1);
    const followup = await api.call('POST', '/api/followups/', {
      auth,
      json: { ticket: ticket.body.id, title: 't', comment: 'c' },
    });
    expect(followup.status).toBe(201);
    expect(
      (await api.call('PATCH', `/api/followups/${followup.body.id}/`, { auth, json: { public: true } })).status,
    ).toBe(200);
    expect((await api.call('DELETE', `/api/followups/${followup.body.id}/`, { auth })).status).toBe(204);
    expect((await api.call('PATCH', `/api/tickets/${ticket.body.id}/`, { auth, json: { priority: 1 } })).status).toBe(
      200,
    );
    expect((await api.call('DELETE', `/api/tickets/${ticket.body.id}/`, { auth })).status).toBe(204);
    const user = await api.call('POST', '/api/users/', {
      auth,
      json: {
        first_name: 'F',
        last_name: 'L',
        username: 'made-by-staff',
        email: 'm@example.com',
        password: 'pw-123456',
      },
    });
    expect(user.status).toBe(201);
  });

  it('cannot read or change queues and custom fields', async () => {
    const auth = callers.staff!;
    for (const [method, path, json] of [
      ['GET', '/api/queues/1/', undefined],
      ['POST', '/api/queues/', { title: 'Sneaky', slug: 'sneaky' }],
      ['PATCH', '/api/queues/1/', { title: 'Renamed' }],
      ['DELETE', '/api/queues/1/', undefined],
      ['POST', '/api/custom-fields/', { name: 'sneaky', label: 'S', data_type: 'varchar' }],
    ] as const) {
      expect((await api.call(method, path, { auth, json })).status, `${method} ${path}`).toBe(403);
    }
    expect((await api.call('GET', '/api/queues/1/')).body).toEqual({
      id: 1,
      title: 'Support',
      slug: 'support',
      email_address: null,
      new_ticket_cc: null,
      updated_ticket_cc: null,
      disabled_mail: [],
      escalate_days: null,
      allow_public_submission: false,
      locale: null,
    });
    expect((await api.call('GET', '/api/custom-fields/')).body.count).toBe(0);
  });

  it("case 14: a staff user's user_tickets holds only the tickets submitted with their e-mail", async () => {
    const mine = await api.createTicket({ title: 'Test 1', submitter_email: STAFF.email });
    await api.createTicket({ title: 'Test 2', submitter_email: 'foo@example.com' });
    const reply = await api.call('GET', '/api/user_tickets/', { auth: callers.staff });
    expect(reply.status).toBe(200);
    expect(reply.body.count).toBe(1);
    expect(reply.body.results).toHaveLength(1);
    expect(reply.body.results[0]).toMatchObject({ id: mine.body.id, title: 'Test 1', submitter: STAFF.email });
  });
});
