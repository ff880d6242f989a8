/**
 * What every route says about itself: GET /api/ and OPTIONS (docs/upstream.md: routes and permissions, decided points)
 * and HEAD on every GET route. Who may call is checked route by route in permissions.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../shared/api/routes';
import { ADMIN_AUTH, API, call, createTicket, createUser, multipart, rawRequest, unique, type Json } from './client';

/**
 * The `Allow` header of every path (docs/upstream.md: routes and permissions), and whether OPTIONS describes a body
 * (POST/PUT).
 */
const PATHS: Record<string, { allow: string; actions: string[] }> = {
  '/api': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/openapi.json': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/docs': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/docs/{asset}': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/tickets': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/tickets/{id}': { allow: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS', actions: ['PUT'] },
  '/api/tickets/{id}/attachments/{attachmentId}': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/followups': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/followups/{id}': { allow: 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS', actions: ['PUT'] },
  '/api/followups-attachments': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/followups-attachments/{id}': { allow: 'GET, DELETE, HEAD, OPTIONS', actions: [] },
  '/api/users': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/users/me': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/users/{id}': { allow: 'GET, PATCH, HEAD, OPTIONS', actions: [] },
  '/api/user_tickets': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/user_tickets/{id}': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/tokens': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/tokens/{id}': { allow: 'DELETE, OPTIONS', actions: [] },
  '/api/queues': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/queues/{id}': { allow: 'GET, PATCH, DELETE, HEAD, OPTIONS', actions: [] },
  '/api/custom-fields': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/custom-fields/{name}': { allow: 'GET, PATCH, DELETE, HEAD, OPTIONS', actions: [] },
  '/api/webhook-deliveries': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/webhook-deliveries/{id}': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/webhook-deliveries/{id}/redeliver': { allow: 'POST, OPTIONS', actions: [] },
  '/api/webhooks': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/webhooks/{id}': { allow: 'GET, PATCH, DELETE, HEAD, OPTIONS', actions: [] },
  '/api/webhooks/{id}/rotate-secret': { allow: 'POST, OPTIONS', actions: ['POST'] },
  '/api/webhooks/{id}/ping': { allow: 'POST, OPTIONS', actions: [] },
  '/api/events': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/tickets/{id}/cc': { allow: 'GET, POST, HEAD, OPTIONS', actions: ['POST'] },
  '/api/tickets/{id}/cc/{ccId}': { allow: 'DELETE, OPTIONS', actions: [] },
  '/api/tickets/{id}/emails': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/mail/suppressions': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/mail/suppressions/{address}': { allow: 'DELETE, OPTIONS', actions: [] },
  '/api/mail/problems': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  '/api/mail/problems/{id}/release': { allow: 'POST, OPTIONS', actions: [] },
  '/api/mail/templates': { allow: 'GET, HEAD, OPTIONS', actions: [] },
  // OPTIONS describes the bodies of the routes describe.ts lists; a template's PUT is not among them.
  '/api/mail/templates/{kind}': { allow: 'GET, PUT, DELETE, HEAD, OPTIONS', actions: [] },
  '/api/escalation-exclusions': { allow: 'GET, POST, HEAD, OPTIONS', actions: [] },
  '/api/escalation-exclusions/{id}': { allow: 'GET, DELETE, HEAD, OPTIONS', actions: [] },
  '/api/ignored-senders': { allow: 'GET, POST, HEAD, OPTIONS', actions: [] },
  '/api/ignored-senders/{id}': { allow: 'GET, DELETE, HEAD, OPTIONS', actions: [] },
  '/api/reports/time-spent': { allow: 'GET, HEAD, OPTIONS', actions: [] },
};

/** The writable fields OPTIONS describes, in order (no custom fields exist on this runtime). */
const ACTION_FIELDS: Record<string, string[]> = {
  'POST /api/tickets': [
    'queue',
    'title',
    'description',
    'resolution',
    'submitter_email',
    'assigned_to',
    'status',
    'on_hold',
    'priority',
    'due_date',
    'merged_to',
    'attachment',
  ],
  'PUT /api/tickets/{id}': [
    'queue',
    'title',
    'description',
    'resolution',
    'submitter_email',
    'assigned_to',
    'status',
    'on_hold',
    'priority',
    'due_date',
    'merged_to',
  ],
  'POST /api/followups': ['ticket', 'user', 'title', 'comment', 'public', 'new_status', 'time_spent', 'attachments'],
  'POST /api/webhooks': ['url', 'events', 'description', 'enabled'],
  'POST /api/webhooks/{id}/rotate-secret': ['keep_previous_for'],
  'PUT /api/followups/{id}': ['ticket', 'user', 'title', 'comment', 'public', 'new_status', 'time_spent'],
  'POST /api/followups-attachments': ['followup', 'file', 'filename', 'mime_type', 'size'],
  'POST /api/users': ['first_name', 'last_name', 'username', 'email', 'password'],
  'POST /api/queues': [
    'title',
    'slug',
    'email_address',
    'new_ticket_cc',
    'updated_ticket_cc',
    'disabled_mail',
    'escalate_days',
    'allow_public_submission',
    'locale',
  ],
  'POST /api/tokens': ['user'],
  'POST /api/tickets/{id}/cc': ['email', 'user', 'can_view', 'can_update'],
  'POST /api/custom-fields': [
    'name',
    'label',
    'help_text',
    'data_type',
    'max_length',
    'decimal_places',
    'empty_selection_list',
    'list_values',
    'required',
    'staff_only',
    'ordering',
  ],
};

const REQUIRED_FIELDS: Record<string, string[]> = {
  'POST /api/tickets': ['queue', 'title', 'description', 'submitter_email'],
  'PUT /api/tickets/{id}': ['queue', 'title', 'description', 'submitter_email'],
  'POST /api/followups': ['ticket', 'title', 'comment'],
  'PUT /api/followups/{id}': ['ticket'],
  'POST /api/followups-attachments': ['followup', 'file'],
  'POST /api/users': ['first_name', 'last_name', 'username', 'email', 'password'],
  'POST /api/queues': ['title', 'slug'],
  'POST /api/tokens': [],
  'POST /api/custom-fields': ['name', 'label', 'data_type'],
  'POST /api/webhooks': ['url', 'events'],
  'POST /api/webhooks/{id}/rotate-secret': [],
  'POST /api/tickets/{id}/cc': [],
};

const fill = (path: string, values: Record<string, string | number>) =>
  `${path.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name] ?? 99999999))}/`;

describe('GET /api/', () => {
  it("answers the five links as absolute URLs, in upstream's order", async () => {
    const reply = await call('GET', '/api/');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(reply.text).toBe(
      JSON.stringify({
        tickets: `${API}/api/tickets/`,
        user_tickets: `${API}/api/user_tickets/`,
        followups: `${API}/api/followups/`,
        'followups-attachments': `${API}/api/followups-attachments/`,
        users: `${API}/api/users/`,
      }),
    );
    expect((await call('GET', '/api')).text).toBe(reply.text);
  });

  it('the links use the host the client asked for', async () => {
    const reply = await rawRequest(
      'GET',
      '/api/',
      { authorization: ADMIN_AUTH, host: 'helpdesk.example.com' },
      Buffer.alloc(0),
    );
    expect(reply.body.tickets).toBe('http://helpdesk.example.com/api/tickets/');
  });

  it('every link answers', async () => {
    const root = (await call('GET', '/api/')).body;
    for (const [name, url] of Object.entries<string>(root)) {
      const reply = await fetch(url, { headers: { authorization: ADMIN_AUTH } });
      // users too: GET /api/users/ lists users here, where upstream answers 405 (docs/api.md, deliberate differences).
      expect(reply.status, name).toBe(200);
    }
  });

  it('any authenticated user may read it, staff or not; no credentials gives 401', async () => {
    const user = await createUser();
    const plain = await call('GET', '/api/', { auth: user.auth });
    expect(plain.status).toBe(200);
    expect(plain.text).toBe((await call('GET', '/api/')).text);
    const anonymous = await call('GET', '/api/', { auth: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="api"');
  });

  it('answers only GET, HEAD and OPTIONS: POST gives 405', async () => {
    const reply = await call('POST', '/api/', { json: {} });
    expect(reply.status).toBe(405);
    expect(reply.body).toEqual({ detail: 'Method "POST" not allowed.' });
    expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('OPTIONS', () => {
  it('the table above covers every path of the route table', () => {
    expect(Object.keys(PATHS).sort()).toEqual([...new Set(routes.map((r) => r.path))].sort());
  });

  it.each(Object.entries(PATHS))(
    '%s answers 200 with Allow, name, renders, parses and actions for POST/PUT',
    async (path, expected) => {
      const reply = await call('OPTIONS', fill(path, { name: 'anything' }));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.headers.get('allow')).toBe(expected.allow);
      expect(reply.headers.get('content-type')).toBe('application/json');
      const { name, description, renders, parses, actions, ...rest } = reply.body;
      expect(rest).toEqual({});
      expect(typeof name).toBe('string');
      expect(name).not.toBe('');
      expect(description).toBe('');
      expect(renders).toEqual(['application/json']);
      expect(parses).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
      if (!expected.actions.length) {
        expect(actions).toBeUndefined();
        return;
      }
      expect(Object.keys(actions)).toEqual(expected.actions);
      for (const method of expected.actions) {
        const key = `${method} ${path}`;
        const fields = actions[method];
        expect(Object.keys(fields), key).toEqual(ACTION_FIELDS[key]);
        for (const [field, info] of Object.entries<Json>(fields)) {
          expect(Object.keys(info).slice(0, 4), `${key} ${field}`).toEqual(['type', 'required', 'read_only', 'label']);
          expect(info.read_only).toBe(false);
          expect(typeof info.label).toBe('string');
        }
        const required = Object.entries(fields)
          .filter(([, info]) => (info as Json).required)
          .map(([field]) => field);
        expect(required, key).toEqual(REQUIRED_FIELDS[key]);
      }
    },
  );

  it('describes types and choices as DRF does', async () => {
    const tickets = (await call('OPTIONS', '/api/tickets/')).body.actions.POST;
    expect(tickets.queue).toEqual({ type: 'field', required: true, read_only: false, label: 'Queue' });
    expect(tickets.title).toEqual({
      type: 'string',
      required: true,
      read_only: false,
      label: 'Title',
      max_length: 200,
    });
    expect(tickets.submitter_email).toMatchObject({ type: 'email', max_length: 254 });
    expect(tickets.on_hold.type).toBe('boolean');
    expect(tickets.due_date.type).toBe('datetime');
    expect(tickets.attachment).toEqual({ type: 'file upload', required: false, read_only: false, label: 'Attachment' });
    expect(tickets.status.choices).toEqual([
      { value: 1, display_name: 'Open' },
      { value: 2, display_name: 'Reopened' },
      { value: 3, display_name: 'Resolved' },
      { value: 4, display_name: 'Closed' },
      { value: 5, display_name: 'Duplicate' },
    ]);
    expect(tickets.priority.choices.map((c: Json) => c.value)).toEqual([1, 2, 3, 4, 5]);
    const followups = (await call('OPTIONS', '/api/followups/')).body.actions.POST;
    expect(followups.time_spent.type).toBe('duration');
    expect(followups.new_status.type).toBe('choice');
    const fields = (await call('OPTIONS', '/api/custom-fields/')).body.actions.POST;
    expect(fields.data_type.choices.map((c: Json) => c.value)).toEqual([
      'varchar',
      'text',
      'integer',
      'decimal',
      'list',
      'boolean',
      'date',
      'time',
      'datetime',
      'email',
      'url',
      'ipaddress',
      'slug',
    ]);
  });

  it('answers without the trailing slash, and on ids that do not exist', async () => {
    expect((await call('OPTIONS', '/api/tickets')).status).toBe(200);
    const detail = await call('OPTIONS', '/api/tickets/99999999');
    expect(detail.status).toBe(200);
    expect(detail.headers.get('allow')).toBe(PATHS['/api/tickets/{id}']!.allow);
  });

  it('an unknown path still gives 404', async () => {
    const reply = await call('OPTIONS', '/api/nothing-here/');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ detail: 'Not found.' });
  });
});

describe('HEAD', () => {
  it("every GET route answers HEAD with GET's status and headers, without a body", async () => {
    const user = await createUser();
    const ticket = (await createTicket({ submitter_email: user.email })).body;
    const followup = ticket.followup_set[0].id;
    const file = await call(
      'POST',
      '/api/followups-attachments/',
      multipart({ followup }, [{ field: 'file', name: 'head.txt', content: 'head' }]),
    );
    const slug = unique('q');
    const queue = await call('POST', '/api/queues/', { json: { title: 'Head', slug } });
    expect(queue.status, queue.text).toBe(201);
    expect(file.status, file.text).toBe(201);
    const ids = { id: ticket.id, attachmentId: file.body.id, name: 'no-such-field' };
    const concrete: Record<string, Record<string, string | number>> = {
      '/api/followups/{id}': { id: followup },
      '/api/followups-attachments/{id}': { id: file.body.id },
      '/api/queues/{id}': { id: queue.body.id },
    };

    for (const route of routes.filter((r) => r.method === 'GET')) {
      for (const values of [{ ...ids, ...concrete[route.path] }, {}]) {
        const path = fill(route.path, values);
        const auth = route.path.startsWith('/api/user_tickets') ? user.auth : ADMIN_AUTH;
        const get = await fetch(`${API}${path}`, { headers: { authorization: auth }, redirect: 'manual' });
        const head = await fetch(`${API}${path}`, {
          method: 'HEAD',
          headers: { authorization: auth },
          redirect: 'manual',
        });
        expect(head.status, `HEAD ${path}`).toBe(get.status);
        expect(await head.text(), `HEAD ${path}`).toBe('');
        for (const name of ['content-type', 'allow', 'vary'])
          expect(head.headers.get(name), `HEAD ${path} ${name}`).toBe(get.headers.get(name));
        // A redirect's presigned target is signed anew each time: compare where it points.
        const target = (r: Response) => r.headers.get('location')?.split('?')[0];
        expect(target(head), `HEAD ${path} location`).toBe(target(get));
        if (!Object.keys(values).length) expect(get.status, `GET ${path}`).toBe(route.path.includes('{') ? 404 : 200);
      }
    }
  }, 60_000); // two requests per GET route and case: ~50 requests

  it("HEAD needs the route's permission like GET", async () => {
    const user = await createUser();
    const anonymous = await fetch(`${API}/api/tickets/`, { method: 'HEAD' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="api"');
    const plain = await fetch(`${API}/api/queues/`, { method: 'HEAD', headers: { authorization: user.auth } });
    expect(plain.status).toBe(403);
    expect(await plain.text()).toBe('');
  });
});
