/**
 * Every limit in docs/api.md's "Limits" table, at its edge: the largest value accepted, and the next
 * one refused with its 4xx and upstream-shaped body, before anything is stored.
 */
import { describe, expect, it } from 'vitest';
import { VALID_TICKET, call, createTicket, expectNoNewTicket, multipart, unique } from './client';

const over = (n: number) => `Ensure this field has no more than ${n} characters.`;
const LONG = 80_000;

async function ticketId(overrides: Record<string, unknown> = {}): Promise<number> {
  return (await createTicket({ title: 'limits', ...overrides })).body.id;
}

describe('text fields: the longest value is stored, one character more is a 400', () => {
  it.each([
    ['title', 200],
    ['description', LONG],
  ])('ticket %s: %i characters', async (field, max) => {
    const ok = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, [field]: 'y'.repeat(max) } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body[field]).toHaveLength(max);
    const refused = await expectNoNewTicket(() =>
      call('POST', '/api/tickets/', { json: { ...VALID_TICKET, [field]: 'y'.repeat(max + 1) } }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ [field]: [over(max)] });
  });

  it(`ticket resolution: ${LONG} characters on PATCH and PUT`, async () => {
    const id = await ticketId();
    expect((await call('PATCH', `/api/tickets/${id}/`, { json: { resolution: 'r'.repeat(LONG) } })).status).toBe(200);
    const refused = await call('PUT', `/api/tickets/${id}/`, {
      json: { ...VALID_TICKET, resolution: 'r'.repeat(LONG + 1) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ resolution: [over(LONG)] });
    expect((await call('GET', `/api/tickets/${id}/`)).body.resolution).toHaveLength(LONG);
  });

  it(`followup comment: ${LONG} characters on create (multipart too) and edit`, async () => {
    const ticket = await ticketId();
    const ok = await call('POST', '/api/followups/', { json: { ticket, title: 'long', comment: 'c'.repeat(LONG) } });
    expect(ok.status, ok.text).toBe(201);
    const tooLong = 'c'.repeat(LONG + 1);
    const { body, contentType } = multipart({ ticket, title: 'long', comment: tooLong }, [
      { field: 'attachments', name: 'a.txt', content: 'file' },
    ]);
    const refused = await call('POST', '/api/followups/', { body, contentType });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ comment: [over(LONG)] });
    const edit = await call('PATCH', `/api/followups/${ok.body.id}/`, { json: { comment: tooLong } });
    expect(edit.status).toBe(400);
    expect(edit.body).toEqual({ comment: [over(LONG)] });
    expect((await call('GET', `/api/tickets/${ticket}/`)).body.followup_set).toHaveLength(2);
  });

  it('followup title: 200 characters', async () => {
    const ticket = await ticketId();
    const refused = await call('POST', '/api/followups/', { json: { ticket, title: 't'.repeat(201), comment: 'c' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ title: [over(200)] });
  });

  it('submitter e-mail: 254 characters', async () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(email).toHaveLength(254);
    expect((await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, submitter_email: email } })).status).toBe(
      201,
    );
    const refused = await call('POST', '/api/tickets/', { json: { ...VALID_TICKET, submitter_email: `a${email}` } });
    expect(refused.status).toBe(400);
    expect(refused.body.submitter_email).toContain(over(254));
  });

  it('user fields: names 150, password 4096', async () => {
    const user = {
      first_name: 'F',
      last_name: 'L',
      username: unique('lim'),
      email: 'lim@example.com',
      password: 'p'.repeat(4096),
    };
    expect((await call('POST', '/api/users/', { json: user })).status).toBe(201);
    const refused = await call('POST', '/api/users/', {
      json: { ...user, username: unique('lim'), first_name: 'f'.repeat(151), password: 'p'.repeat(4097) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ first_name: [over(150)], password: [over(4096)] });
  });
});

describe('a ticket always fits one stored record (DynamoDB items are at most 400 KB)', () => {
  const wide = '\u00e9'.repeat(LONG); // 160,000 bytes of UTF-8, within each field's own limit

  it('description and resolution that together pass 300,000 bytes are a 400, and nothing changes', async () => {
    const id = await ticketId({ description: wide });
    const refused = await call('PATCH', `/api/tickets/${id}/`, { json: { resolution: wide } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      non_field_errors: [
        expect.stringMatching(
          /^The ticket's text fields together take 320\d{3} bytes \(UTF-8\); at most 300000 can be stored\.$/,
        ),
      ],
    });
    const after = (await call('GET', `/api/tickets/${id}/`)).body;
    expect(after.resolution).toBeNull();
    expect(after.description).toBe(wide);
  });

  it('with the opening followup its record holds: past 390,000 bytes a create or an update is a 400', async () => {
    const euros = '\u20ac'.repeat(LONG); // 240,000 bytes: the opening followup's comment repeats them
    const create = await call('POST', '/api/tickets/', {
      json: { queue: 1, title: 'Wide', description: euros, submitter_email: 'wide@example.com' },
    });
    expect(create.status).toBe(400);
    expect(create.body).toEqual({
      non_field_errors: [
        expect.stringMatching(/^The ticket's text fields take 240\d{3} bytes .* 390000 can be stored\.$/),
      ],
    });
    const id = await ticketId({ description: wide });
    const update = await call('PATCH', `/api/tickets/${id}/`, { json: { description: euros } });
    expect(update.status).toBe(400);
    expect(update.body).toEqual({ non_field_errors: [expect.stringContaining('at most 390000 can be stored')] });
    expect((await call('GET', `/api/tickets/${id}/`)).body.description).toBe(wide);
  });

  it('a resolving followup counts the opening followup the record holds too: a 400, not a 500', async () => {
    const id = await ticketId({ description: '\u20ac'.repeat(64_000) }); // 192,000 bytes, twice in its record
    const resolve = { ticket: id, title: 'Done', comment: '\u20ac'.repeat(35_000), new_status: 3 };
    const refused = await call('POST', '/api/followups/', { json: resolve });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ non_field_errors: [expect.stringContaining('at most 390000 can be stored')] });
    expect((await call('GET', `/api/tickets/${id}/`)).body).toMatchObject({ status: 1, resolution: null });
  });

  it(
    'a followup whose comment would become a resolution too large to store is ' + 'a 400 before its files are uploaded',
    async () => {
      const id = await ticketId({ description: wide });
      const { body, contentType } = multipart({ ticket: id, title: 'Done', comment: wide, new_status: 3 }, [
        { field: 'attachments', name: 'a.txt', content: 'file' },
      ]);
      const refused = await call('POST', '/api/followups/', { body, contentType });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ non_field_errors: [expect.stringContaining('at most 300000 can be stored')] });
      const after = (await call('GET', `/api/tickets/${id}/`)).body;
      expect(after.status).toBe(1);
      expect(after.followup_set).toHaveLength(1);
      // A short comment still resolves it.
      expect(
        (await call('POST', '/api/followups/', { json: { ticket: id, title: 'Done', comment: 'ok', new_status: 3 } }))
          .status,
      ).toBe(201);
    },
  );
});

// Custom field limits are tested in custom-fields.test.ts, which has a runtime of its own (definitions
// show on every ticket of a runtime).

describe('requests and pages', () => {
  it('at most 20 files and 200 parts in a multipart body (413); at most 1 MiB a field', async () => {
    const ticket = await ticketId();
    const files = Array.from({ length: 21 }, (_, i) => ({ field: 'attachments', name: `f${i}.txt`, content: 'x' }));
    const tooMany = multipart({ ticket, title: 'files', comment: 'c' }, files);
    const reply = await call('POST', '/api/followups/', { body: tooMany.body, contentType: tooMany.contentType });
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ detail: 'At most 20 files may be sent in one request.' });

    const fields = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`k${i}`, 'v']));
    const parts = multipart({ ...VALID_TICKET, ...fields });
    const many = await call('POST', '/api/tickets/', { body: parts.body, contentType: parts.contentType });
    expect(many.status).toBe(413);
    expect(many.body).toEqual({ detail: 'At most 200 parts may be sent in one request.' });

    const big = multipart({ ...VALID_TICKET, description: 'd'.repeat(1024 * 1024 + 1) });
    const field = await call('POST', '/api/tickets/', { body: big.body, contentType: big.contentType });
    expect(field.status).toBe(413);
    expect(field.body).toEqual({ detail: 'The field "description" is larger than 1048576 bytes.' });
  });

  it('a file name is cut to 255 characters, keeping its extension', async () => {
    const ticket = await ticketId();
    const { body, contentType } = multipart({ ticket, title: 'name', comment: 'c' }, [
      { field: 'attachments', name: `${'n'.repeat(300)}.txt`, content: 'x' },
    ]);
    const reply = await call('POST', '/api/followups/', { body, contentType });
    expect(reply.status).toBe(201);
    const filename: string = reply.body.followupattachment_set[0].filename;
    expect(filename).toHaveLength(255);
    expect(filename.endsWith('.txt')).toBe(true);
  });

  it(
    'a followup holds at most 31 attachments; a full one is still moved and deleted whole, files and all',
    { timeout: 120_000 },
    async () => {
      const ticket = await ticketId();
      const files = (n: number, from: number) =>
        Array.from({ length: n }, (_, i) => ({
          field: 'attachments',
          name: `f${from + i}.txt`,
          content: `file ${from + i}`,
        }));
      const { body, contentType } = multipart({ ticket, title: 'many', comment: 'c' }, files(20, 0));
      const followup = await call('POST', '/api/followups/', { body, contentType });
      expect(followup.status, followup.text).toBe(201);
      const add = (i: number) => {
        const part = multipart({ followup: followup.body.id }, [
          { field: 'file', name: `more${i}.txt`, content: `more ${i}` },
        ]);
        return call('POST', '/api/followups-attachments/', { body: part.body, contentType: part.contentType });
      };
      for (let i = 20; i < 31; i++) expect((await add(i)).status).toBe(201);
      const refused = await add(31);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body).toEqual({ followup: ['A followup holds at most 31 attachments.'] });
      const read = await call('GET', `/api/tickets/${ticket}`);
      expect(
        read.body.followup_set.find((f: { id: number }) => f.id === followup.body.id).followupattachment_set,
      ).toHaveLength(31);

      const other = await ticketId();
      expect((await call('PATCH', `/api/followups/${followup.body.id}/`, { json: { ticket: other } })).status).toBe(
        200,
      );
      const moved = (await call('GET', `/api/tickets/${other}`)).body.followup_set.find(
        (f: { id: number }) => f.id === followup.body.id,
      );
      expect(moved.followupattachment_set).toHaveLength(31);
      expect((await call('DELETE', `/api/followups/${followup.body.id}/`)).status).toBe(204);
      expect(
        (await call('GET', `/api/tickets/${other}`)).body.followup_set.map((f: { id: number }) => f.id),
      ).not.toContain(followup.body.id);
    },
  );

  it('page_size is capped at 100', async () => {
    const reply = await call('GET', '/api/followups/?page_size=1000');
    expect(reply.status).toBe(200);
    expect(reply.body.results.length).toBeLessThanOrEqual(100);
  });
});
