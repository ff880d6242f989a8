/** POST /api/users/ (docs/upstream.md: where we differ, b). */
import { describe, expect, it } from 'vitest';
import { basic, call, createUser, unique } from './client';

const REQUIRED = ['This field is required.'];
const BLANK = ['This field may not be blank.'];
const FIELDS = ['first_name', 'last_name', 'username', 'email', 'password'];

function newUser(overrides: Record<string, unknown> = {}) {
  const username = unique('u');
  return {
    first_name: 'New',
    last_name: 'User',
    username,
    email: `${username}@example.com`,
    password: 'new-pass-123',
    ...overrides,
  };
}

async function post400(body: Record<string, unknown>) {
  const reply = await call('POST', '/api/users/', { json: body });
  expect(reply.status, reply.text).toBe(400);
  return reply.body;
}

describe('creating a user', () => {
  it('answers 201 with first_name, last_name, username and email only, no Location', async () => {
    const body = newUser();
    const reply = await call('POST', '/api/users/', { json: body });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBeNull();
    expect(Object.keys(reply.body)).toEqual(['first_name', 'last_name', 'username', 'email']);
    expect(reply.body).toEqual({ first_name: 'New', last_name: 'User', username: body.username, email: body.email });
  });

  it('the new user can authenticate at once, and being active non-staff gets 403 on staff routes', async () => {
    const body = newUser();
    expect((await call('POST', '/api/users/', { json: body })).status).toBe(201);
    const auth = basic(body.username, body.password);
    for (const [method, path] of [
      ['GET', '/api/tickets/'],
      ['POST', '/api/tickets/'],
      ['POST', '/api/followups/'],
      ['POST', '/api/users/'],
    ] as const) {
      const reply = await call(method, path, { auth, ...(method === 'GET' ? {} : { json: {} }) });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(reply.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    }
    const wrong = await call('GET', '/api/tickets/', { auth: basic(body.username, 'not-the-password') });
    expect(wrong.status).toBe(401);
  });

  it('trims the fields like any string, and the password too', async () => {
    const body = newUser({ first_name: '  Spaced  ', password: '  secret-pw  ' });
    const reply = await call('POST', '/api/users/', { json: body });
    expect(reply.status).toBe(201);
    expect(reply.body.first_name).toBe('Spaced');
    expect((await call('GET', '/api/tickets/', { auth: basic(body.username, 'secret-pw') })).status).toBe(403);
  });

  it("a password needs at least 8 characters (after trimming), with Django's message; nothing is created", async () => {
    const tooShort = { password: ['This password is too short. It must contain at least 8 characters.'] };
    for (const password of ['x', '1234567', '  1234567  ', '😀😀😀😀😀😀😀']) {
      const body = newUser({ password });
      expect(await post400(body)).toEqual(tooShort);
      expect((await call('GET', '/api/tickets/', { auth: basic(body.username, password) })).status).toBe(401);
    }
    const body = newUser({ password: '12345678' });
    expect((await call('POST', '/api/users/', { json: body })).status).toBe(201);
    expect((await call('GET', '/api/tickets/', { auth: basic(body.username, '12345678') })).status).toBe(403);
  });

  it('the minimum length counts characters, not bytes or UTF-16 units', async () => {
    const body = newUser({ password: '😀😀😀😀😀😀😀😀' });
    expect((await call('POST', '/api/users/', { json: body })).status).toBe(201);
  });

  it('accepts a form body', async () => {
    const body = newUser();
    const reply = await call('POST', '/api/users/', {
      body: new URLSearchParams(body as Record<string, string>).toString(),
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.username).toBe(body.username);
  });

  it('usernames may use letters, digits and @ . + - _', async () => {
    const username = `${unique('a')}.b+c-d_e@f`;
    const reply = await call('POST', '/api/users/', { json: newUser({ username }) });
    expect(reply.status).toBe(201);
    expect(reply.body.username).toBe(username);
  });

  it('usernames may use letters of any script', async () => {
    const username = `${unique('jösé')}_日本`;
    const reply = await call('POST', '/api/users/', { json: newUser({ username }) });
    expect(reply.status).toBe(201);
    expect(reply.body.username).toBe(username);
    expect((await call('GET', '/api/tickets/', { auth: basic(username, 'new-pass-123') })).status).toBe(403);
  });

  it('usernames are unique case-sensitively: the same username again gives 400', async () => {
    const body = newUser();
    expect((await call('POST', '/api/users/', { json: body })).status).toBe(201);
    expect(await post400({ ...body, email: 'other@example.com' })).toEqual({
      username: ['A user with that username already exists.'],
    });
    const upper = await call('POST', '/api/users/', { json: { ...body, username: body.username.toUpperCase() } });
    expect(upper.status).toBe(201);
  });

  it('e-mail addresses need not be unique', async () => {
    const email = `${unique('shared')}@example.com`;
    expect((await call('POST', '/api/users/', { json: newUser({ email }) })).status).toBe(201);
    expect((await call('POST', '/api/users/', { json: newUser({ email }) })).status).toBe(201);
  });
});

describe('validation', () => {
  it('{} gives one "required" message per field, in field order', async () => {
    const body = await post400({});
    expect(Object.keys(body)).toEqual(FIELDS);
    for (const field of FIELDS) expect(body[field]).toEqual(REQUIRED);
  });

  it.each(FIELDS)('a missing %s is required', async (field) => {
    const body = newUser();
    delete (body as Record<string, unknown>)[field];
    expect(await post400(body)).toEqual({ [field]: REQUIRED });
  });

  it.each(FIELDS)('a blank %s may not be blank', async (field) => {
    expect(await post400(newUser({ [field]: '' }))).toEqual({ [field]: BLANK });
    expect(await post400(newUser({ [field]: '   ' }))).toEqual({ [field]: BLANK });
  });

  it('a username with other characters is refused', async () => {
    for (const username of ['with space', 'semi;colon', 'slash/name', 'hash#']) {
      expect(await post400(newUser({ username }))).toEqual({
        username: ['Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.'],
      });
    }
  });

  it('a username over 150 characters is refused', async () => {
    expect(await post400(newUser({ username: 'u'.repeat(151) }))).toEqual({
      username: ['Ensure this field has no more than 150 characters.'],
    });
  });

  it('names over 150 characters are refused', async () => {
    expect(await post400(newUser({ first_name: 'f'.repeat(151), last_name: 'l'.repeat(151) }))).toEqual({
      first_name: ['Ensure this field has no more than 150 characters.'],
      last_name: ['Ensure this field has no more than 150 characters.'],
    });
  });

  it('an invalid e-mail is refused', async () => {
    for (const email of ['not-an-email', 'a@', '@b.com', 'a b@c.com']) {
      expect(await post400(newUser({ email }))).toEqual({ email: ['Enter a valid email address.'] });
    }
  });

  it('a failed creation creates no user', async () => {
    const body = newUser({ email: 'broken' });
    await post400(body);
    const retry = await call('POST', '/api/users/', { json: { ...body, email: 'fixed@example.com' } });
    expect(retry.status).toBe(201);
    expect((await call('GET', '/api/tickets/', { auth: basic(body.username, body.password) })).status).toBe(403);
  });

  it('a non-staff user cannot create users', async () => {
    const user = await createUser();
    const reply = await call('POST', '/api/users/', { auth: user.auth, json: newUser() });
    expect(reply.status).toBe(403);
  });
});
