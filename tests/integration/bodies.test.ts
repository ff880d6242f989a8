/** Request bodies and response conventions (docs/upstream.md: request bodies, responses). */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_AUTH,
  SECURITY_HEADERS,
  VALID_TICKET,
  call,
  createTicket,
  form,
  listAll,
  multipart,
  rawRequest,
  unique,
  type Reply,
} from './client';

function expectSecurityHeaders(reply: Reply): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(reply.headers.get(name), name).toBe(value);
}

describe('content types', () => {
  it('a text/plain body gets 415 with the media type in the detail', async () => {
    const reply = await call('POST', '/api/tickets/', { body: 'hello', contentType: 'text/plain' });
    expect(reply.status).toBe(415);
    expect(reply.body).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('the 415 comes after the object lookup: a missing ticket gives 404 first', async () => {
    const missing = await call('PATCH', '/api/tickets/999999999/', { body: 'hello', contentType: 'text/plain' });
    expect(missing.status).toBe(404);
    const ticket = (await createTicket()).body;
    const present = await call('PATCH', `/api/tickets/${ticket.id}/`, { body: 'hello', contentType: 'text/plain' });
    expect(present.status).toBe(415);
    expect(present.body).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  it('an application/x-www-form-urlencoded body creates a ticket', async () => {
    const params = new URLSearchParams({
      queue: '1',
      title: 'urlencoded',
      description: 'd',
      submitter_email: 'u@example.com',
      priority: '2',
    });
    const reply = await call('POST', '/api/tickets/', {
      body: params.toString(),
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      title: 'urlencoded',
      description: 'd',
      submitter_email: 'u@example.com',
      priority: 2,
    });
  });

  it('a multipart body without files creates a ticket', async () => {
    const reply = await call('POST', '/api/tickets/', { form: form({ ...VALID_TICKET, title: 'multipart' }) });
    expect(reply.status).toBe(201);
    expect(reply.body.title).toBe('multipart');
    expect(reply.body.priority).toBe(4);
  });

  it('an empty body counts as {}', async () => {
    const create = await call('POST', '/api/tickets/', { body: '', contentType: 'application/json' });
    expect(create.status).toBe(400);
    expect(Object.keys(create.body)).toEqual(['queue', 'title', 'description', 'submitter_email']);
    const ticket = (await createTicket()).body;
    const patch = await call('PATCH', `/api/tickets/${ticket.id}/`, { body: '', contentType: 'application/json' });
    expect(patch.status).toBe(200);
    expect(patch.body).toEqual(ticket);
  });
});

describe('malformed bodies', () => {
  it('bad JSON gets 400 "JSON parse error - ..."', async () => {
    const reply = await call('POST', '/api/tickets/', { body: '{"queue": 1,', contentType: 'application/json' });
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body)).toEqual(['detail']);
    expect(reply.body.detail).toMatch(/^JSON parse error - ./);
  });

  it('a broken multipart body gets 400 "Multipart form parse error - ..."', async () => {
    const reply = await call('POST', '/api/tickets/', {
      body: '--xyz\r\ngarbage',
      contentType: 'multipart/form-data; boundary=xyz',
    });
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body)).toEqual(['detail']);
    expect(reply.body.detail).toMatch(/^Multipart form parse error - ./);
  });

  it('a multipart body without a boundary gets 400 "Multipart form parse error - ..."', async () => {
    const reply = await call('POST', '/api/tickets/', { body: 'queue=1', contentType: 'multipart/form-data' });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatch(/^Multipart form parse error - ./);
  });

  it.each([
    ['[]', 'list'],
    ['"text"', 'str'],
    ['42', 'int'],
    ['4.5', 'float'],
    ['true', 'bool'],
  ])('JSON %s gets "Expected a dictionary, but got %s."', async (raw, type) => {
    const reply = await call('POST', '/api/tickets/', { body: raw, contentType: 'application/json' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${type}.`] });
  });

  it('JSON null gets "No data provided"', async () => {
    const reply = await call('POST', '/api/tickets/', { body: 'null', contentType: 'application/json' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ non_field_errors: ['No data provided'] });
  });

  it('a lone surrogate escape (text that is not Unicode) gets 400 and writes nothing', async () => {
    const submitter = `${unique('not-unicode')}@example.com`;
    const fields = (title: string) =>
      `{"queue":${VALID_TICKET.queue},"title":"${title}","description":"d","submitter_email":"${submitter}"}`;
    const refused = await call('POST', '/api/tickets/', {
      body: fields('half \\ud83d an emoji'),
      contentType: 'application/json',
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      detail: 'JSON parse error - a string holds a lone UTF-16 surrogate, which is not Unicode text',
    });
    expect(await listAll(`submitter_email=${encodeURIComponent(submitter)}`)).toEqual([]);
    // The whole pair is text: the refusal is the lone half's.
    const whole = await call('POST', '/api/tickets/', {
      body: fields('an emoji \\ud83d\\ude00'),
      contentType: 'application/json',
    });
    expect([whole.status, whole.body.title]).toEqual([201, 'an emoji 😀']);
  });

  it('a body over 4 MiB gets 413 with a JSON detail', async () => {
    const big = Buffer.from(JSON.stringify({ ...VALID_TICKET, description: 'x'.repeat(4 * 1024 * 1024) }));
    const reply = await rawRequest(
      'POST',
      '/api/tickets/',
      { authorization: ADMIN_AUTH, 'content-type': 'application/json' },
      big,
    );
    expect(reply.status).toBe(413);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(reply.body)).toEqual(['detail']);
    expect(typeof reply.body.detail).toBe('string');
  });

  it('a multipart upload over 4 MiB gets 413 and stores nothing', async () => {
    const title = unique('too-big');
    const { body, contentType } = multipart({ ...VALID_TICKET, title }, [
      { field: 'attachment', name: 'big.bin', content: Buffer.alloc(4 * 1024 * 1024 + 10, 1) },
    ]);
    const reply = await rawRequest(
      'POST',
      '/api/tickets/',
      { authorization: ADMIN_AUTH, 'content-type': contentType },
      body,
    );
    expect(reply.status).toBe(413);
    expect(typeof reply.body.detail).toBe('string');
    expect((await listAll()).some((t) => t.title === title)).toBe(false);
  });

  it('a body of just under 4 MiB is accepted', async () => {
    const content = Buffer.alloc(4 * 1024 * 1024 - 4096, 7);
    const reply = await call('POST', '/api/tickets/', {
      ...multipart(VALID_TICKET, [{ field: 'attachment', name: 'large.bin', content }]),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.followup_set[0].followupattachment_set[0].size).toBe(content.length);
  });
});

describe('field rules', () => {
  it('unknown and read-only keys are ignored', async () => {
    const reply = await call('POST', '/api/tickets/', {
      json: {
        ...VALID_TICKET,
        id: 999999999,
        followup_set: [{ title: 'injected' }],
        secret_key: 'mine',
        created: '2000-01-01T00:00:00Z',
        modified: '2000-01-01T00:00:00Z',
        date: '2000-01-01T00:00:00Z',
        message_id: 'x',
        whatever: 'ignored',
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.id).not.toBe(999999999);
    expect(reply.body.followup_set).toHaveLength(1);
    expect(reply.body.followup_set[0].title).toBe('Ticket Opened');
    expect(reply.body).not.toHaveProperty('whatever');
    expect(reply.body).not.toHaveProperty('secret_key');
    expect(reply.body).not.toHaveProperty('created');
  });

  it('string fields are trimmed', async () => {
    const reply = await createTicket({ title: '  padded title \n', description: '  kept inside  ' });
    expect(reply.body.title).toBe('padded title');
    expect(reply.body.description).toBe('kept inside');
  });

  it('a whitespace-only string counts as blank', async () => {
    const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, title: '   \t ' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ title: ['This field may not be blank.'] });
  });

  it('numbers sent to string fields become strings', async () => {
    const reply = await createTicket({ title: 12345, description: 1.5 });
    expect(reply.body.title).toBe('12345');
    expect(reply.body.description).toBe('1.5');
  });

  it.each([[true], [[]], [['a']], [{}], [{ a: 1 }]])(
    '%j sent to a string field gives "Not a valid string."',
    async (value) => {
      const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, title: value } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ title: ['Not a valid string.'] });
    },
  );

  it('a NUL character in a string field gives "Null characters are not allowed."', async () => {
    const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, title: 'a\u0000b' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ title: ['Null characters are not allowed.'] });
  });

  it('id fields accept 1 and "1"', async () => {
    expect((await createTicket({ queue: 1 })).body.queue).toBe(1);
    expect((await createTicket({ queue: '1' })).body.queue).toBe(1);
  });

  it('id fields reject a wrong type with "Incorrect type. Expected pk value, received <type>."', async () => {
    for (const [value, type] of [
      ['abc', 'str'],
      [true, 'bool'],
      [[1], 'list'],
      [{ id: 1 }, 'dict'],
    ] as const) {
      const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, queue: value } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ queue: [`Incorrect type. Expected pk value, received ${type}.`] });
    }
  });

  it('choice fields accept 2 and "2"', async () => {
    expect((await createTicket({ priority: 2 })).body.priority).toBe(2);
    expect((await createTicket({ priority: '2' })).body.priority).toBe(2);
  });

  it('a choice outside the list gives "\\"9\\" is not a valid choice."', async () => {
    const reply = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, priority: '9' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ priority: ['"9" is not a valid choice.'] });
  });
});

describe('form and multipart bodies', () => {
  it('an empty optional non-text field counts as not sent on create', async () => {
    const reply = await call('POST', '/api/tickets/', {
      form: form({ ...VALID_TICKET, priority: '', assigned_to: '', due_date: '', merged_to: '' }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ priority: 3, assigned_to: null, due_date: null, merged_to: null });
  });

  it('on PATCH an empty non-text field is not sent, a nullable one becomes null, a text field keeps ""', async () => {
    const ticket = (await createTicket({ priority: 2, due_date: '2030-01-02T03:04:05Z' })).body;
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { resolution: 'some resolution' } });
    const reply = await call('PATCH', `/api/tickets/${ticket.id}/`, {
      form: form({ priority: '', due_date: '', resolution: '' }),
    });
    expect(reply.status).toBe(200);
    expect(reply.body.priority).toBe(2);
    expect(reply.body.due_date).toBeNull();
    expect(reply.body.resolution).toBe('');
  });

  it('repeated form values: the last one wins', async () => {
    const data = form({ ...VALID_TICKET });
    data.append('priority', '5');
    const reply = await call('POST', '/api/tickets/', { form: data });
    expect(reply.status).toBe(201);
    expect(reply.body.priority).toBe(5);
  });
});

describe('responses', () => {
  it('responses carry Content-Type application/json and the security headers', async () => {
    const created = await call('POST', '/api/tickets/', { json: VALID_TICKET });
    const replies = [
      created,
      await call('GET', `/api/tickets/${created.body.id}/`),
      await call('GET', '/api/tickets/?page_size=1'),
      await call('POST', '/api/tickets/', { json: {} }),
      await call('GET', '/api/tickets/', { auth: null }),
      await call('GET', '/api/nope/'),
      await call('DELETE', '/api/tickets/'),
      await call('POST', '/api/tickets/', { body: 'x', contentType: 'text/plain' }),
    ];
    for (const reply of replies) {
      expect(reply.headers.get('content-type'), String(reply.status)).toBe('application/json');
      expectSecurityHeaders(reply);
    }
  });

  it('creation answers 201 without a Location header', async () => {
    const reply = await call('POST', '/api/tickets/', { json: VALID_TICKET });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBeNull();
  });

  it('204 has no body and no Content-Type', async () => {
    const ticket = (await createTicket()).body;
    const reply = await call('DELETE', `/api/tickets/${ticket.id}/`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(reply.headers.get('content-type')).toBeNull();
    expectSecurityHeaders(reply);
  });

  it('JSON is compact, with non-ASCII characters as raw UTF-8', async () => {
    const title = 'Café ☕ 日本語 — ünïcödé';
    const reply = await createTicket({ title, description: 'line 1\nline "2"' });
    expect(reply.text).toBe(JSON.stringify(reply.body));
    expect(reply.text).toContain(`"title":"${title}"`);
    expect(reply.text).not.toMatch(/\\u[0-9a-f]{4}/i);
    const read = await call('GET', `/api/tickets/${reply.body.id}/`);
    expect(read.text).toBe(JSON.stringify(read.body));
  });
});
