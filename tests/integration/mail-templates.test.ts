/**
 * Mail template overrides over HTTP (superusers): /api/mail/templates/{kind}/ shows the template in
 * use, PUT overrides parts of it (globally or for a queue) once they render, DELETE resets. That the
 * sender renders with them is mail-out's test.
 */
import { describe, expect, it } from 'vitest';
import { call, createUser, unique } from './client';

const TAG_NEEDED =
  "The subject must contain {{ ticket.tag }} (the ticket's [queue-id] tag, which replies are threaded by).";

describe('mail template overrides', () => {
  it('PUT overrides a part for every queue, a queue override wins for its queue, DELETE resets each', async () => {
    const queue = (await call('POST', '/api/queues/', { json: { title: 'Tpl', slug: unique('tpl') } })).body
      .id as number;
    const before = await call('GET', '/api/mail/templates/closed_cc/');
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ kind: 'closed_cc', queue: null, overridden: [] });
    expect(before.body.subject).toContain('{{');

    const global = await call('PUT', '/api/mail/templates/closed_cc/', {
      json: { subject: '{{ ticket.tag }} Closed: {{ ticket.title }}' },
    });
    expect(global.status, global.text).toBe(200);
    expect(global.body).toMatchObject({
      kind: 'closed_cc',
      queue: null,
      subject: '{{ ticket.tag }} Closed: {{ ticket.title }}',
      text: null,
      html: null,
    });
    const mine = await call('PUT', '/api/mail/templates/closed_cc/', {
      json: { queue, subject: '{{ ticket.tag }} Done', html: '<p>{{ ticket.title }}</p>' },
    });
    expect(mine.status, mine.text).toBe(200);

    const shownGlobal = (await call('GET', '/api/mail/templates/closed_cc/')).body;
    expect(shownGlobal).toMatchObject({
      subject: '{{ ticket.tag }} Closed: {{ ticket.title }}',
      text: before.body.text,
      html: before.body.html,
      overridden: ['subject'],
    });
    const shownQueue = (await call('GET', `/api/mail/templates/closed_cc/?queue=${queue}`)).body;
    expect(shownQueue).toMatchObject({
      queue,
      subject: '{{ ticket.tag }} Done',
      html: '<p>{{ ticket.title }}</p>',
      text: before.body.text,
      overridden: ['subject', 'html'],
    });
    const listed = (await call('GET', '/api/mail/templates/')).body.results as { kind: string; queue: number | null }[];
    expect(listed.filter((o) => o.kind === 'closed_cc').map((o) => o.queue)).toEqual([null, queue]);

    expect((await call('DELETE', `/api/mail/templates/closed_cc/?queue=${queue}`)).status).toBe(204);
    expect((await call('GET', `/api/mail/templates/closed_cc/?queue=${queue}`)).body.overridden).toEqual(['subject']);
    expect((await call('DELETE', '/api/mail/templates/closed_cc/')).status).toBe(204);
    expect((await call('GET', '/api/mail/templates/closed_cc/')).body).toEqual(before.body);
    expect((await call('DELETE', '/api/mail/templates/closed_cc/')).status).toBe(404);
  });

  it('a template that would not render is refused with what is wrong, and nothing is kept', async () => {
    const cases: [unknown, unknown][] = [
      [{ subject: 'No tag here' }, { subject: [TAG_NEEDED] }],
      [
        { subject: '{{ ticket.tag }} {{ ticket.secret_key }}' },
        { subject: [expect.stringMatching(/^Unknown name "ticket.secret_key"/)] },
      ],
      [{ html: '{{#comment}}<p>{{ comment }}</p>' }, { html: ['"{{#comment}}" is never closed.'] }],
      [{ subject: '{{ ticket.tag }}\r\nBcc: x@example.com' }, { subject: ['Line breaks are not allowed.'] }],
      [{}, { non_field_errors: ['Give at least one of subject, text and html (DELETE resets a template).'] }],
      [{ text: 'x'.repeat(20_001) }, { text: ['Ensure this field has no more than 20000 characters.'] }],
      [{ queue: 99999999, text: 'Hi' }, { queue: ['Invalid pk "99999999" - object does not exist.'] }],
    ];
    for (const [body, errors] of cases) {
      const reply = await call('PUT', '/api/mail/templates/updated_owner/', { json: body });
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.body).toEqual(errors);
    }
    expect((await call('GET', '/api/mail/templates/updated_owner/')).body.overridden).toEqual([]);
    expect((await call('GET', '/api/mail/templates/no_such_kind/')).status).toBe(404);
    expect((await call('PUT', '/api/mail/templates/no_such_kind/', { json: { text: 'x' } })).status).toBe(404);
    expect((await call('GET', '/api/mail/templates/closed_cc/?queue=abc')).body).toEqual({
      queue: ['A valid integer is required.'],
    });
    const missing = await call('GET', '/api/mail/templates/closed_cc/?queue=99999999');
    expect([missing.status, missing.body]).toEqual([
      400,
      { queue: ['Invalid pk "99999999" - object does not exist.'] },
    ]);
  });

  it('superusers only', async () => {
    const plain = await createUser({ username: unique('plain') });
    expect((await call('GET', '/api/mail/templates/', { auth: plain.auth })).status).toBe(403);
    expect(
      (await call('PUT', '/api/mail/templates/closed_cc/', { auth: plain.auth, json: { text: 'x' } })).status,
    ).toBe(403);
  });
});
