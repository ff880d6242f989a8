/**
 * Custom fields (as upstream's, and its test cases 10a and 10b): the definitions API
 * (superusers) and the `custom_<name>` values every ticket representation carries.
 *
 * Definitions are global: every ticket of a runtime shows them and creation enforces the required
 * ones. So this file runs on a runtime of its own, started here, and no other file defines any.
 * Its tests run in order and share that runtime's definitions; each test leaves them as it found
 * them (the upstream set of `beforeAll` from "custom values" on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DATE_TIME,
  TICKET_KEYS,
  VALID_TICKET,
  clientFor,
  expectedCase5Ticket,
  multipart,
  unique,
  type Json,
} from './client';
import { spawnApiRuntime, type SpawnedRuntime } from './spawn-runtime';
import { onSharedEngines } from './shared-engines';

let runtime: SpawnedRuntime | undefined;
let api: ReturnType<typeof clientFor>;

beforeAll(async () => {
  runtime = await spawnApiRuntime(onSharedEngines());
  api = clientFor(runtime.url);
});

afterAll(async () => {
  await runtime?.stop();
});

const REQUIRED = ['This field is required.'];
const DEFINITION_KEYS = [
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
];
const DATE_TIME_MESSAGE =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';
const TIME_MESSAGE = 'Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].';
const DATE_MESSAGE = 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.';
const SLUG_MESSAGE = 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.';

async function define(body: Record<string, unknown>): Promise<Json> {
  const reply = await api.call('POST', '/api/custom-fields/', { json: { label: 'Label', ...body } });
  expect(reply.status, reply.text).toBe(201);
  return reply.body;
}

async function undefine(name: string): Promise<void> {
  const reply = await api.call('DELETE', `/api/custom-fields/${name}/`);
  expect(reply.status, reply.text).toBe(204);
}

async function redefine(name: string, changes: Record<string, unknown>): Promise<Json> {
  const reply = await api.call('PATCH', `/api/custom-fields/${name}/`, { json: changes });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

async function ticket(id: number): Promise<Json> {
  const reply = await api.call('GET', `/api/tickets/${id}/`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** The list entry of ticket `id` (the list may hold other tickets of this file). */
async function listed(id: number): Promise<Json> {
  for (let page = 1; ; page++) {
    const reply = await api.call('GET', `/api/tickets/?page_size=100&page=${page}`);
    expect(reply.status, reply.text).toBe(200);
    const found = reply.body.results.find((t: Json) => t.id === id);
    if (found) return found;
    if (!reply.body.next) throw new Error(`ticket ${id} not listed`);
  }
}

const customOf = (t: Json) => Object.fromEntries(Object.entries(t).filter(([k]) => k.startsWith('custom_')));

describe('custom field definitions (superusers)', () => {
  it('POST answers 201 with the definition, keys in order, defaults filled in', async () => {
    const name = unique('cf');
    const reply = await api.call('POST', '/api/custom-fields/', {
      json: { name, label: 'Customer number', data_type: 'varchar' },
    });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body)).toEqual(DEFINITION_KEYS);
    expect(reply.body).toEqual({
      name,
      label: 'Customer number',
      help_text: '',
      data_type: 'varchar',
      max_length: null,
      decimal_places: null,
      empty_selection_list: false,
      list_values: [],
      required: false,
      staff_only: false,
      ordering: null,
    });
    const got = await api.call('GET', `/api/custom-fields/${name}/`);
    expect(got.status).toBe(200);
    expect(got.text).toBe(reply.text);
    await undefine(name);
  });

  it('takes every property; list values are trimmed and kept in order', async () => {
    const name = unique('cf');
    const body = {
      name,
      label: 'Colour',
      help_text: 'Pick one',
      data_type: 'list',
      max_length: null,
      decimal_places: null,
      empty_selection_list: true,
      list_values: ['  Green', 'Blue  ', ' Red '],
      required: true,
      staff_only: true,
      ordering: 7,
    };
    const created = await define(body);
    expect(created).toEqual({ ...body, list_values: ['Green', 'Blue', 'Red'] });
    await undefine(name);
  });

  it('GET lists the definitions by ordering, then name, paginated', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((p) => unique(`${p}cf`));
    await define({ name: c!, data_type: 'integer', ordering: 1 });
    await define({ name: b!, data_type: 'integer', ordering: 2 });
    await define({ name: a!, data_type: 'integer', ordering: 2 });
    const reply = await api.call('GET', '/api/custom-fields/?page_size=100');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['count', 'next', 'previous', 'results']);
    const names = reply.body.results.map((d: Json) => d.name).filter((n: string) => [a, b, c].includes(n));
    expect(names).toEqual([c, a, b]);
    for (const d of reply.body.results) expect(Object.keys(d)).toEqual(DEFINITION_KEYS);
    const paged = await api.call('GET', '/api/custom-fields/?page_size=1&page=2');
    expect(paged.status).toBe(200);
    expect(paged.body.results).toHaveLength(1);
    expect(paged.body.previous).toBe(`${api.url}/api/custom-fields/?page_size=1`);
    for (const n of [a!, b!, c!]) await undefine(n);
  });

  it('refuses a list without list_values, a decimal without decimal_places, an unknown type', async () => {
    const cases: [Record<string, unknown>, Json][] = [
      [{ data_type: 'list' }, { list_values: ['A list field needs at least one value.'] }],
      [{ data_type: 'list', list_values: [] }, { list_values: ['A list field needs at least one value.'] }],
      [{ data_type: 'decimal', max_length: 5 }, { decimal_places: ['A decimal field needs decimal_places.'] }],
      [{ data_type: 'colour' }, { data_type: ['"colour" is not a valid choice.'] }],
    ];
    for (const [body, errors] of cases) {
      const name = unique('cf');
      const reply = await api.call('POST', '/api/custom-fields/', { json: { name, label: 'L', ...body } });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toEqual(errors);
      expect((await api.call('GET', `/api/custom-fields/${name}/`)).status).toBe(404);
    }
  });

  it('refuses a name that is not a slug, and a duplicate name', async () => {
    const bad = await api.call('POST', '/api/custom-fields/', {
      json: { name: 'two words', label: 'L', data_type: 'varchar' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ name: [SLUG_MESSAGE] });
    const name = unique('cf');
    await define({ name, data_type: 'varchar' });
    const again = await api.call('POST', '/api/custom-fields/', {
      json: { name, label: 'Other', data_type: 'integer' },
    });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ name: ['custom field with this name already exists.'] });
    expect((await api.call('GET', `/api/custom-fields/${name}/`)).body.data_type).toBe('varchar');
    await undefine(name);
  });

  it('{} lists name, label and data_type as required', async () => {
    const reply = await api.call('POST', '/api/custom-fields/', { json: {} });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ name: REQUIRED, label: REQUIRED, data_type: REQUIRED });
  });

  it('PATCH changes any property but the name', async () => {
    const name = unique('cf');
    await define({ name, data_type: 'varchar', max_length: 5 });
    const patched = await redefine(name, { label: 'New label', max_length: 20, required: true, ordering: 3, name });
    expect(patched).toMatchObject({ name, label: 'New label', max_length: 20, required: true, ordering: 3 });
    expect((await api.call('GET', `/api/custom-fields/${name}/`)).body).toEqual(patched);

    const renamed = await api.call('PATCH', `/api/custom-fields/${name}/`, { json: { name: unique('other') } });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toEqual({ name: ['The name of a custom field cannot change.'] });
    const toList = await api.call('PATCH', `/api/custom-fields/${name}/`, { json: { data_type: 'list' } });
    expect(toList.status).toBe(400);
    expect(toList.body).toEqual({ list_values: ['A list field needs at least one value.'] });
    expect((await api.call('GET', `/api/custom-fields/${name}/`)).body).toEqual(patched);
    await undefine(name);
  });

  it('an unknown name gives 404 on GET, PATCH and DELETE; DELETE answers 204 once', async () => {
    // A name the create refuses (past 50 characters, past a table key's 1,024 bytes, not a slug) names none either.
    const names = [unique('none'), 'x'.repeat(51), 'x'.repeat(3000), 'not%20a%20slug', '%E2%82%AC', '%ZZ'];
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      for (const name of names) {
        const reply = await api.call(method, `/api/custom-fields/${name}/`, method === 'PATCH' ? { json: {} } : {});
        expect(reply.status, `${method} ${name.slice(0, 20)}`).toBe(404);
        expect(reply.body).toEqual({ detail: 'Not found.' });
      }
    }
    const name = unique('cf');
    await define({ name, data_type: 'varchar' });
    const deleted = await api.call('DELETE', `/api/custom-fields/${name}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.call('DELETE', `/api/custom-fields/${name}/`)).status).toBe(404);
  });

  it('staff without superuser rights and plain users get 403; anonymous callers 401', async () => {
    const user = await api.createUser();
    for (const [method, path] of [
      ['GET', '/api/custom-fields/'],
      ['POST', '/api/custom-fields/'],
      ['GET', '/api/custom-fields/x/'],
      ['PATCH', '/api/custom-fields/x/'],
      ['DELETE', '/api/custom-fields/x/'],
    ] as const) {
      expect((await api.call(method, path, { auth: user.auth })).status, `${method} ${path}`).toBe(403);
      expect((await api.call(method, path, { auth: null })).status, `${method} ${path}`).toBe(401);
    }
  });
});

describe('staff-only fields', () => {
  it('are never shown to a user who is not staff: not in user_tickets, list or detail (issue 13, hole 5)', async () => {
    const open = unique('open');
    const secret = unique('secret');
    await define({ name: open, data_type: 'varchar', max_length: 20 });
    await define({ name: secret, data_type: 'varchar', max_length: 20, staff_only: true });
    try {
      const user = await api.createUser();
      const ticket = (
        await api.createTicket({
          submitter_email: user.email,
          [`custom_${open}`]: 'shown',
          [`custom_${secret}`]: 'internal note',
        })
      ).body;
      expect(ticket[`custom_${secret}`]).toBe('internal note'); // staff see it
      const list = (await api.call('GET', '/api/user_tickets/', { auth: user.auth })).body.results as Json[];
      const detail = (await api.call('GET', `/api/user_tickets/${ticket.id}/`, { auth: user.auth })).body;
      expect(
        list.find((t) => t.id === ticket.id),
        JSON.stringify(list.find((t) => t.id === ticket.id)),
      ).toHaveProperty(`custom_${open}`, 'shown');
      for (const shown of [list.find((t) => t.id === ticket.id)!, detail]) {
        expect(shown).not.toHaveProperty(`custom_${secret}`);
        expect(JSON.stringify(shown)).not.toContain('internal note');
      }
    } finally {
      await undefine(secret);
      await undefine(open);
    }
  });
});

describe('values on tickets', () => {
  it('a ticket created before a field existed shows null for it; a new field shows at once everywhere', async () => {
    const before = (await api.createTicket()).body;
    expect(Object.keys(before)).toEqual(TICKET_KEYS);
    const name = unique('cf');
    await define({ name, data_type: 'varchar' });
    const key = `custom_${name}`;
    const got = await ticket(before.id);
    expect(Object.keys(got)).toEqual([...TICKET_KEYS, key]);
    expect(got[key]).toBeNull();
    expect((await listed(before.id))[key]).toBeNull();
    await undefine(name);
  });

  it("a ticket's ETag changes when the definitions change what GET shows; the old tag gets 412", async () => {
    const created = await api.createTicket();
    const id = created.body.id;
    const before = created.headers.get('etag')!;
    const name = unique('cf');
    await define({ name, data_type: 'varchar' });
    const defined = (await api.call('GET', `/api/tickets/${id}/`)).headers.get('etag')!;
    expect(defined).not.toBe(before);
    await redefine(name, { label: 'Another label' });
    expect((await api.call('GET', `/api/tickets/${id}/`)).headers.get('etag')).not.toBe(defined);
    const stale = await api.call('PATCH', `/api/tickets/${id}/`, {
      json: { priority: 1 },
      headers: { 'if-match': before },
    });
    expect(stale.status).toBe(412);
    await undefine(name);
    // The same definitions again: the tag from before is current again (nothing wrote the ticket).
    expect((await api.call('GET', `/api/tickets/${id}/`)).headers.get('etag')).toBe(before);
    const fresh = await api.call('PATCH', `/api/tickets/${id}/`, {
      json: { priority: 1 },
      headers: { 'if-match': before },
    });
    expect(fresh.status).toBe(200);
  });

  it('deleting a definition removes its key; one created again under the same name starts empty', async () => {
    const name = unique('cf');
    const key = `custom_${name}`;
    await define({ name, data_type: 'varchar' });
    const created = (await api.createTicket({ [key]: 'kept?' })).body;
    expect(created[key]).toBe('kept?');
    await undefine(name);
    expect(Object.keys(await ticket(created.id))).toEqual(TICKET_KEYS);
    expect(Object.keys(await listed(created.id))).toEqual(TICKET_KEYS);
    const gone = await api.call('PATCH', `/api/tickets/${created.id}/`, { json: { [key]: 'x' } });
    expect(gone.status).toBe(400);
    expect(gone.body).toEqual({ [key]: ['No custom field of this name is defined.'] });

    await define({ name, data_type: 'varchar' });
    expect((await ticket(created.id))[key]).toBeNull();
    await undefine(name);
  });

  it("keys follow the definitions' ordering, then name, after followup_set, in every representation", async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((p) => unique(`${p}cf`));
    await define({ name: b!, data_type: 'integer', ordering: 1 });
    await define({ name: a!, data_type: 'integer', ordering: 2 });
    await define({ name: c!, data_type: 'integer', ordering: 2 });
    const expected = [...TICKET_KEYS, `custom_${b}`, `custom_${a}`, `custom_${c}`];
    const created = await api.createTicket({ [`custom_${a}`]: 1 });
    expect(Object.keys(created.body)).toEqual(expected);
    expect(Object.keys(await ticket(created.body.id))).toEqual(expected);
    expect(Object.keys(await listed(created.body.id))).toEqual(expected);
    const patched = await api.call('PATCH', `/api/tickets/${created.body.id}/`, { json: { [`custom_${c}`]: 3 } });
    expect(Object.keys(patched.body)).toEqual(expected);
    const put = await api.call('PUT', `/api/tickets/${created.body.id}/`, { json: VALID_TICKET });
    expect(Object.keys(put.body)).toEqual(expected);
    expect(customOf(put.body)).toEqual({ [`custom_${b}`]: null, [`custom_${a}`]: 1, [`custom_${c}`]: 3 });

    await redefine(b!, { ordering: 3 });
    expect(Object.keys(await ticket(created.body.id))).toEqual([
      ...TICKET_KEYS,
      `custom_${a}`,
      `custom_${c}`,
      `custom_${b}`,
    ]);
    for (const n of [a!, b!, c!]) await undefine(n);
  });

  it('an unknown custom_ key gives 400 keyed by that key, with the other errors', async () => {
    const reply = await api.call('POST', '/api/tickets/', { json: { ...VALID_TICKET, title: '', custom_nope: 'x' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      title: ['This field may not be blank.'],
      custom_nope: ['No custom field of this name is defined.'],
    });
  });
});

/**
 * Upstream's test set: one field of each type, named after it (varchar/text max_length 10, integer
 * required, decimal 7 digits with 3 places, list Green, Blue, Red, Yellow). `ordering` keeps them
 * in upstream's order of types.
 */
const UPSTREAM_FIELDS: ({ name: string } & Record<string, unknown>)[] = [
  { name: 'varchar', label: 'Character (single line)', data_type: 'varchar', max_length: 10 },
  { name: 'text', label: 'Text (multi-line)', data_type: 'text', max_length: 10 },
  { name: 'integer', label: 'Integer', data_type: 'integer', required: true },
  { name: 'decimal', label: 'Decimal', data_type: 'decimal', max_length: 7, decimal_places: 3 },
  {
    name: 'list',
    label: 'List',
    data_type: 'list',
    list_values: ['Green', '                Blue', '                Red', '                Yellow'],
  },
  { name: 'boolean', label: 'Boolean (checkbox yes/no)', data_type: 'boolean' },
  { name: 'date', label: 'Date', data_type: 'date' },
  { name: 'time', label: 'Time', data_type: 'time' },
  { name: 'datetime', label: 'Date & Time', data_type: 'datetime' },
  { name: 'email', label: 'E-mail Address', data_type: 'email' },
  { name: 'url', label: 'URL', data_type: 'url' },
  { name: 'ipaddress', label: 'IP Address', data_type: 'ipaddress' },
  { name: 'slug', label: 'Slug', data_type: 'slug' },
].map((f, i) => ({ ...f, ordering: i + 1 }));
const CUSTOM_KEYS = UPSTREAM_FIELDS.map((f) => `custom_${f.name}`);

/** Case 5's body as multipart string values, as upstream's tests send it. */
const CASE5 = {
  queue: '1',
  title: 'Test title',
  description: 'Test description\nMulti lines',
  submitter_email: 'test@mail.com',
  priority: '4',
};

describe('limits', () => {
  it(
    'a text value takes at most 10,000 characters, whatever max_length says; ' + 'definitions are bounded too',
    async () => {
      const name = unique('lim').toLowerCase();
      const created = await api.call('POST', '/api/custom-fields/', {
        json: { name, label: 'Long', data_type: 'text' },
      });
      expect(created.status, created.text).toBe(201);
      try {
        expect(
          (
            await api.call('POST', '/api/tickets/', {
              json: { ...VALID_TICKET, [`custom_${name}`]: 'v'.repeat(10_000) },
            })
          ).status,
        ).toBe(201);
        const refused = await api.call('POST', '/api/tickets/', {
          json: { ...VALID_TICKET, [`custom_${name}`]: 'v'.repeat(10_001) },
        });
        expect(refused.status).toBe(400);
        expect(refused.body).toEqual({ [`custom_${name}`]: [`Ensure this field has no more than 10000 characters.`] });

        const bad = await api.call('PATCH', `/api/custom-fields/${name}/`, {
          json: {
            max_length: 10_001,
            help_text: 'h'.repeat(10_001),
            list_values: Array.from({ length: 501 }, (_, i) => `v${i}`),
          },
        });
        expect(bad.status).toBe(400);
        expect(bad.body).toEqual({
          help_text: [`Ensure this field has no more than 10000 characters.`],
          max_length: ['Ensure this value is less than or equal to 10000.'],
          list_values: ['Ensure this field has no more than 500 elements.'],
        });
        const longChoice = await api.call('PATCH', `/api/custom-fields/${name}/`, {
          json: { list_values: ['x'.repeat(101)] },
        });
        expect(longChoice.body).toEqual({ list_values: ['Ensure each value has no more than 100 characters.'] });
      } finally {
        await api.call('DELETE', `/api/custom-fields/${name}/`);
      }
    },
  );
});

describe("upstream's custom fields", () => {
  beforeAll(async () => {
    for (const f of UPSTREAM_FIELDS) await define(f);
  });

  it("the list field's values are trimmed", async () => {
    expect((await api.call('GET', '/api/custom-fields/list/')).body.list_values).toEqual([
      'Green',
      'Blue',
      'Red',
      'Yellow',
    ]);
  });

  it('case 10a: case 5\'s body without the required integer gives exactly {"custom_integer": required}', async () => {
    const reply = await api.call('POST', '/api/tickets/', multipart(CASE5));
    expect(reply.status).toBe(400);
    expect(reply.text).toBe('{"custom_integer":["This field is required."]}');
    const json = await api.call('POST', '/api/tickets/', { json: VALID_TICKET });
    expect(json.status).toBe(400);
    expect(json.text).toBe('{"custom_integer":["This field is required."]}');
  });

  it('case 10b: every type with a valid value gives 201 and exactly the ticket, custom keys last', async () => {
    const past = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 16); // YYYY-MM-DDTHH:MM
    const before = Date.now();
    const reply = await api.call(
      'POST',
      '/api/tickets/',
      multipart({
        ...CASE5,
        custom_varchar: 'test',
        custom_text: 'multi\nline',
        custom_integer: '1',
        custom_decimal: '42.987',
        custom_list: 'Red',
        custom_boolean: 'True',
        custom_date: '2022-04-11',
        custom_time: '23:59:59',
        custom_datetime: past,
        custom_email: 'email@test.com',
        custom_url: 'http://django-helpdesk.readthedocs.org/',
        custom_ipaddress: '127.0.0.1',
        custom_slug: 'test-slug',
      }),
    );
    expect(reply.status, reply.text).toBe(201);
    const opening = reply.body.followup_set[0];
    const expected = {
      ...expectedCase5Ticket(reply.body),
      custom_varchar: 'test',
      custom_text: 'multi\nline',
      custom_integer: 1,
      custom_decimal: '42.987',
      custom_list: 'Red',
      custom_boolean: true,
      custom_date: '2022-04-11',
      custom_time: '23:59:59',
      custom_datetime: past,
      custom_email: 'email@test.com',
      custom_url: 'http://django-helpdesk.readthedocs.org/',
      custom_ipaddress: '127.0.0.1',
      custom_slug: 'test-slug',
    };
    expect(reply.text).toBe(JSON.stringify(expected));
    expect(reply.body).not.toHaveProperty('attachment');
    expect(opening.date).toMatch(DATE_TIME);
    expect(Date.parse(opening.date)).toBeGreaterThanOrEqual(before - 1000);
    expect((await api.call('GET', `/api/tickets/${reply.body.id}/`)).text).toBe(reply.text);
  });

  it("upstream's JSON example of every type renders as 4.4 shows it", async () => {
    const reply = await api.call('POST', '/api/tickets/', {
      json: {
        ...VALID_TICKET,
        custom_varchar: 'test',
        custom_text: 'multi\nline',
        custom_integer: 1,
        custom_decimal: 42.987,
        custom_list: 'Red',
        custom_boolean: true,
        custom_date: '2022-04-11',
        custom_time: '23:59:59',
        custom_datetime: '2022-03-01T10:20:00Z',
        custom_email: 'email@test.com',
        custom_url: 'http://django-helpdesk.readthedocs.org/',
        custom_ipaddress: '127.0.0.1',
        custom_slug: 'test-slug',
      },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(JSON.stringify(customOf(reply.body))).toBe(
      '{"custom_varchar":"test","custom_text":"multi\\nline","custom_integer":1,"custom_decimal":"42.987",' +
        '"custom_list":"Red","custom_boolean":true,"custom_date":"2022-04-11","custom_time":"23:59:59",' +
        '"custom_datetime":"2022-03-01T10:20","custom_email":"email@test.com",' +
        '"custom_url":"http://django-helpdesk.readthedocs.org/",' +
        '"custom_ipaddress":"127.0.0.1","custom_slug":"test-slug"}',
    );
  });

  it("all thirteen invalid at once give exactly upstream's 400, and store nothing", async () => {
    const invalid = {
      custom_varchar: '12345678901',
      custom_text: '12345678901',
      custom_integer: 'abc',
      custom_decimal: '12345.1234',
      custom_list: 'Purple',
      custom_boolean: 'maybe',
      custom_date: '2022-13-01',
      custom_time: '25:00',
      custom_datetime: 'yesterday',
      custom_email: 'bad',
      custom_url: 'not a url',
      custom_ipaddress: '999.1.1.1',
      custom_slug: 'bad slug!',
    };
    const expected =
      '{"custom_varchar":["Ensure this field has no more than 10 characters."],"custom_text":["Ensure this field ' +
      'has no more than 10 characters."],"custom_integer":["A valid integer is ' +
      'required."],"custom_decimal":["Ensure that there are no more than 7 digits in ' +
      'total."],"custom_list":["\\"Purple\\" is not a valid choice."],"custom_boolean":["Must be a valid ' +
      'boolean."],"custom_date":["Date has wrong format. Use one of these formats instead: ' +
      'YYYY-MM-DD."],"custom_time":["Time has wrong format. Use one of these formats instead: ' +
      'hh:mm[:ss[.uuuuuu]]."],"custom_datetime":["Datetime has wrong format. Use one of these formats instead: ' +
      'YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."],"custom_email":["Enter a valid email ' +
      'address."],"custom_url":["Enter a valid URL."],"custom_ipaddress":["Enter a valid IPv4 or IPv6 ' +
      'address."],"custom_slug":["Enter a valid \\"slug\\" consisting of letters, numbers, underscores or ' +
      'hyphens."]}';
    const before = await api.countsSettled();
    const json = await api.call('POST', '/api/tickets/', { json: { ...VALID_TICKET, ...invalid } });
    expect(json.status).toBe(400);
    expect(json.text).toBe(expected);
    const form = await api.call('POST', '/api/tickets/', multipart({ ...CASE5, ...invalid }));
    expect(form.status).toBe(400);
    expect(form.text).toBe(expected);
    expect(await api.countsSettled()).toBe(before);
  });

  it(
    'creation stores a default for every field not sent: "" for text types and ' + 'list, null, false for boolean',
    async () => {
      await redefine('integer', { required: false });
      try {
        const created = (await api.createTicket()).body;
        const defaults = {
          custom_varchar: '',
          custom_text: '',
          custom_integer: null,
          custom_decimal: null,
          custom_list: '',
          custom_boolean: false,
          custom_date: null,
          custom_time: null,
          custom_datetime: null,
          custom_email: '',
          custom_url: '',
          custom_ipaddress: '',
          custom_slug: '',
        };
        expect(customOf(created)).toEqual(defaults);
        expect(Object.keys(created)).toEqual([...TICKET_KEYS, ...CUSTOM_KEYS]);
        expect(customOf(await ticket(created.id))).toEqual(defaults);
        expect(customOf(await listed(created.id))).toEqual(defaults);
      } finally {
        await redefine('integer', { required: true });
      }
    },
  );

  /** Sends one custom value on create (with the required integer) and answers the 201 or 400 body. */
  async function send(key: string, value: unknown): Promise<{ status: number; body: Json }> {
    return api.call('POST', '/api/tickets/', { json: { ...VALID_TICKET, custom_integer: 1, [key]: value } });
  }

  async function expectStored(key: string, value: unknown, shown: unknown): Promise<void> {
    const reply = await send(key, value);
    expect(reply.status, `${key} ${JSON.stringify(value)}: ${JSON.stringify(reply.body)}`).toBe(201);
    expect(reply.body[key], `${key} ${JSON.stringify(value)}`).toEqual(shown);
  }

  async function expectRefused(key: string, value: unknown, message: string): Promise<void> {
    const reply = await send(key, value);
    expect(reply.status, `${key} ${JSON.stringify(value)}`).toBe(400);
    expect(reply.body, `${key} ${JSON.stringify(value)}`).toEqual({ [key]: [message] });
  }

  /**
   * Runs the cases concurrently (each is its own ticket creation): `[key, value, shown]` and `[key, value, message]`.
   */
  async function check(stored: [string, unknown, unknown][], refused: [string, unknown, string][]): Promise<void> {
    await Promise.all([...stored.map((c) => expectStored(...c)), ...refused.map((c) => expectRefused(...c))]);
  }

  it('varchar and text: strings (trimmed), numbers as strings; max_length, blank and non-strings refused', async () => {
    for (const key of ['custom_varchar', 'custom_text']) {
      await check(
        [
          [key, '  padded  ', 'padded'],
          [key, 'ten chars!', 'ten chars!'],
          [key, 42, '42'],
        ],
        [
          [key, '12345678901', 'Ensure this field has no more than 10 characters.'],
          [key, '', 'This field may not be blank.'],
          [key, '   ', 'This field may not be blank.'],
          [key, true, 'Not a valid string.'],
          [key, ['a'], 'Not a valid string.'],
        ],
      );
    }
    await expectStored('custom_text', 'two\nlines', 'two\nlines');
  });

  it('integer: a JSON number in responses; "1.0" and 1.0 count as 1; others refused', async () => {
    await check(
      [
        ['custom_integer', 7, 7],
        ['custom_integer', '42', 42],
        ['custom_integer', '-3', -3],
        ['custom_integer', '1.0', 1],
        ['custom_integer', 1.0, 1],
        ['custom_integer', Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
        ['custom_integer', String(Number.MIN_SAFE_INTEGER), Number.MIN_SAFE_INTEGER],
      ],
      [
        ...[1.5, '', 'abc', true, '1.5'].map((bad): [string, unknown, string] => [
          'custom_integer',
          bad,
          'A valid integer is required.',
        ]),
        ['custom_integer', '1'.repeat(1001), 'String value too large.'],
        // Past the safe integers a JSON number is rounded before anyone reads it: refused, never stored changed.
        ['custom_integer', 2 ** 53, 'Ensure this value is less than or equal to 9007199254740991.'],
        ['custom_integer', '99999999999999999999', 'Ensure this value is less than or equal to 9007199254740991.'],
        ['custom_integer', '-9007199254740992', 'Ensure this value is greater than or equal to -9007199254740991.'],
      ],
    );
  });

  it("decimal: a string with exactly decimal_places decimals; digit limits in upstream's order", async () => {
    await check(
      [
        ['custom_decimal', 1.5, '1.500'],
        ['custom_decimal', '42.987', '42.987'],
        ['custom_decimal', '7', '7.000'],
        ['custom_decimal', -0.25, '-0.250'],
        ['custom_decimal', '1234.5', '1234.500'],
      ],
      [
        ...['abc', '', true, '1.2.3'].map((bad): [string, unknown, string] => [
          'custom_decimal',
          bad,
          'A valid number is required.',
        ]),
        ['custom_decimal', '12345.1234', 'Ensure that there are no more than 7 digits in total.'],
        ['custom_decimal', '1.5000', 'Ensure that there are no more than 3 decimal places.'],
        ['custom_decimal', '0.1234', 'Ensure that there are no more than 3 decimal places.'],
        ['custom_decimal', '12345.1', 'Ensure that there are no more than 4 digits before the decimal point.'],
      ],
    );
  });

  it('list: one of the choices, case-sensitive; "" only with empty_selection_list', async () => {
    await check(
      [['custom_list', 'Blue', 'Blue']],
      [
        ['custom_list', 'blue', '"blue" is not a valid choice.'],
        ['custom_list', 'Purple', '"Purple" is not a valid choice.'],
        ['custom_list', '', '"" is not a valid choice.'],
      ],
    );
    await redefine('list', { empty_selection_list: true });
    try {
      await expectStored('custom_list', '', '');
    } finally {
      await redefine('list', { empty_selection_list: false });
    }
    await expectRefused('custom_list', '', '"" is not a valid choice.');
  });

  it('boolean: true or false in responses, from every spelling; others refused', async () => {
    await check(
      [
        ...[true, 1, 'true', 'True', 'TRUE', 't', 'yes', 'y', 'on', '1'].map((yes): [string, unknown, unknown] => [
          'custom_boolean',
          yes,
          true,
        ]),
        ...[false, 0, 'false', 'False', 'f', 'no', 'n', 'off', '0'].map((no): [string, unknown, unknown] => [
          'custom_boolean',
          no,
          false,
        ]),
      ],
      ['maybe', '', 2].map((bad) => ['custom_boolean', bad, 'Must be a valid boolean.']),
    );
  });

  it('date: YYYY-MM-DD only', async () => {
    await check(
      [['custom_date', '2022-04-11', '2022-04-11']],
      ['2022-13-01', '2022-02-30', '11/04/2022', '2022-04-11T10:00', '', 20220411].map((bad) => [
        'custom_date',
        bad,
        DATE_MESSAGE,
      ]),
    );
  });

  it('time: "HH:MM:SS" in responses, from hh:mm, hh:mm:ss and fractions', async () => {
    await check(
      [
        ['custom_time', '23:59', '23:59:00'],
        ['custom_time', '23:59:59', '23:59:59'],
        ['custom_time', '23:59:59.123', '23:59:59'],
        ['custom_time', '7:05', '07:05:00'],
      ],
      ['25:00', '12:60', 'noon', '', 1200].map((bad) => ['custom_time', bad, TIME_MESSAGE]),
    );
  });

  it('datetime: "YYYY-MM-DDTHH:MM" in UTC, seconds and zone dropped', async () => {
    await check(
      [
        ['custom_datetime', '2022-04-11T10:00:00+02:00', '2022-04-11T08:00'],
        ['custom_datetime', '2022-04-11', '2022-04-11T00:00'],
        ['custom_datetime', '2022-04-11T10:20:30.123456Z', '2022-04-11T10:20'],
        ['custom_datetime', '2022-04-11 10:20', '2022-04-11T10:20'],
      ],
      ['yesterday', '2022-13-01T00:00', '', 1].map((bad) => ['custom_datetime', bad, DATE_TIME_MESSAGE]),
    );
  });

  it('email, url, ipaddress and slug', async () => {
    await check(
      [
        ['custom_email', 'someone@example.org', 'someone@example.org'],
        ...[
          'https://example.com/a?b=c',
          'ftp://files.example.com/x',
          'ftps://example.com',
          'http://127.0.0.1:8080/',
        ].map((url): [string, unknown, unknown] => ['custom_url', url, url]),
        ['custom_ipaddress', '::1', '::1'],
        ['custom_ipaddress', '192.168.0.1', '192.168.0.1'],
        ['custom_slug', 'Good_slug-1', 'Good_slug-1'],
      ],
      [
        ['custom_email', 'bad', 'Enter a valid email address.'],
        ...['not a url', 'example.com', 'javascript:alert(1)', 'mailto:a@b.co'].map(
          (bad): [string, unknown, string] => ['custom_url', bad, 'Enter a valid URL.'],
        ),
        ['custom_ipaddress', '999.1.1.1', 'Enter a valid IPv4 or IPv6 address.'],
        ['custom_slug', 'bad slug!', SLUG_MESSAGE],
      ],
    );
  });

  it('null is refused for every type with "This field may not be null."', async () => {
    const reply = await api.call('POST', '/api/tickets/', {
      json: { ...VALID_TICKET, ...Object.fromEntries(CUSTOM_KEYS.map((k) => [k, null])) },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(Object.fromEntries(CUSTOM_KEYS.map((k) => [k, ['This field may not be null.']])));
  });

  it('"" is refused in JSON for every type; the text types say "may not be blank"', async () => {
    const reply = await api.call('POST', '/api/tickets/', {
      json: { ...VALID_TICKET, ...Object.fromEntries(CUSTOM_KEYS.map((k) => [k, ''])) },
    });
    expect(reply.status).toBe(400);
    const blank = ['This field may not be blank.'];
    expect(reply.body).toEqual({
      custom_varchar: blank,
      custom_text: blank,
      custom_integer: ['A valid integer is required.'],
      custom_decimal: ['A valid number is required.'],
      custom_list: ['"" is not a valid choice.'],
      custom_boolean: ['Must be a valid boolean.'],
      custom_date: [DATE_MESSAGE],
      custom_time: [TIME_MESSAGE],
      custom_datetime: [DATE_TIME_MESSAGE],
      custom_email: blank,
      custom_url: blank,
      custom_ipaddress: blank,
      custom_slug: blank,
    });
  });

  it("custom errors come after the ticket's own field errors", async () => {
    const reply = await api.call('POST', '/api/tickets/', { json: { queue: 999, custom_integer: 'x', title: '' } });
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body)).toEqual(['queue', 'title', 'description', 'submitter_email', 'custom_integer']);
  });

  it(
    'form bodies: an empty value of a non-required field counts as not sent; ' + 'of a required one it is invalid',
    async () => {
      const created = await api.call(
        'POST',
        '/api/tickets/',
        multipart({ ...CASE5, custom_integer: '5', custom_decimal: '', custom_varchar: '', custom_date: '' }),
      );
      expect(created.status, created.text).toBe(201);
      expect(customOf(created.body)).toMatchObject({
        custom_integer: 5,
        custom_decimal: null,
        custom_varchar: '',
        custom_date: null,
      });

      const patched = await api.call(
        'PATCH',
        `/api/tickets/${created.body.id}/`,
        multipart({ custom_varchar: 'x', custom_decimal: '2' }),
      );
      expect(customOf(patched.body)).toMatchObject({ custom_varchar: 'x', custom_decimal: '2.000' });
      const emptied = await api.call(
        'PATCH',
        `/api/tickets/${created.body.id}/`,
        multipart({ custom_varchar: '', custom_decimal: '' }),
      );
      expect(emptied.status).toBe(200);
      expect(customOf(emptied.body)).toMatchObject({ custom_varchar: 'x', custom_decimal: '2.000' });

      const required = await api.call('POST', '/api/tickets/', multipart({ ...CASE5, custom_integer: '' }));
      expect(required.status).toBe(400);
      expect(required.body).toEqual({ custom_integer: ['A valid integer is required.'] });
    },
  );

  it('PUT requires the required fields, PATCH does not; both take new values', async () => {
    const created = (await api.createTicket({ custom_integer: 1, custom_varchar: 'first' })).body;
    const put = await api.call('PUT', `/api/tickets/${created.id}/`, { json: VALID_TICKET });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ custom_integer: REQUIRED });
    const putForm = await api.call('PUT', `/api/tickets/${created.id}/`, multipart(CASE5));
    expect(putForm.status).toBe(400);
    expect(putForm.body).toEqual({ custom_integer: REQUIRED });

    const replaced = await api.call('PUT', `/api/tickets/${created.id}/`, {
      json: { ...VALID_TICKET, custom_integer: '2', custom_datetime: '2023-01-02T03:04:05Z' },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(customOf(replaced.body)).toMatchObject({
      custom_integer: 2,
      custom_varchar: 'first',
      custom_datetime: '2023-01-02T03:04',
    });

    const patched = await api.call('PATCH', `/api/tickets/${created.id}/`, { json: { custom_decimal: '3.141' } });
    expect(patched.status, patched.text).toBe(200);
    expect(customOf(patched.body)).toMatchObject({
      custom_integer: 2,
      custom_decimal: '3.141',
      custom_varchar: 'first',
    });
    const none = await api.call('PATCH', `/api/tickets/${created.id}/`, { json: {} });
    expect(none.status).toBe(200);
    expect(customOf(none.body)).toEqual(customOf(patched.body));
    expect(customOf(await ticket(created.id))).toEqual(customOf(patched.body));

    const bad = await api.call('PATCH', `/api/tickets/${created.id}/`, {
      json: { title: 'changed', custom_integer: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ custom_integer: ['A valid integer is required.'] });
    expect((await ticket(created.id)).title).toBe(VALID_TICKET.title);
  });

  it('a multipart PUT without a boolean custom field sets it to false, as for on_hold; PATCH leaves it', async () => {
    const created = (await api.createTicket({ custom_integer: 1, custom_boolean: true })).body;
    const patched = await api.call('PATCH', `/api/tickets/${created.id}/`, multipart({ title: 'patched' }));
    expect(patched.body.custom_boolean).toBe(true);
    const put = await api.call('PUT', `/api/tickets/${created.id}/`, multipart({ ...CASE5, custom_integer: '1' }));
    expect(put.status, put.text).toBe(200);
    expect(put.body.custom_boolean).toBe(false);
    expect((await ticket(created.id)).custom_boolean).toBe(false);
  });

  it('a required boolean must be true on create: false gives "This field is required."', async () => {
    await redefine('boolean', { required: true });
    try {
      for (const value of [false, 'false', 0]) {
        const reply = await api.call('POST', '/api/tickets/', {
          json: { ...VALID_TICKET, custom_integer: 1, custom_boolean: value },
        });
        expect(reply.status, String(value)).toBe(400);
        expect(reply.body).toEqual({ custom_boolean: REQUIRED });
      }
      const missing = await api.call('POST', '/api/tickets/', multipart({ ...CASE5, custom_integer: '1' }));
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ custom_boolean: REQUIRED });
      const ok = await api.call('POST', '/api/tickets/', {
        json: { ...VALID_TICKET, custom_integer: 1, custom_boolean: true },
      });
      expect(ok.status).toBe(201);
      // Only creation insists: a PATCH may set it to false.
      const patched = await api.call('PATCH', `/api/tickets/${ok.body.id}/`, { json: { custom_boolean: false } });
      expect(patched.status).toBe(200);
      expect(patched.body.custom_boolean).toBe(false);
    } finally {
      await redefine('boolean', { required: false });
    }
  });

  it('OPTIONS /api/tickets/ lists the custom fields in actions.POST after the ticket fields', async () => {
    const reply = await api.call('OPTIONS', '/api/tickets/');
    expect(reply.status).toBe(200);
    const post = reply.body.actions.POST;
    expect(Object.keys(post).filter((k) => k.startsWith('custom_'))).toEqual(CUSTOM_KEYS);
    expect(Object.keys(post).slice(-CUSTOM_KEYS.length)).toEqual(CUSTOM_KEYS);
    expect(post.custom_integer).toMatchObject({ type: 'integer', required: true, read_only: false, label: 'Integer' });
    expect(post.custom_varchar).toMatchObject({
      type: 'string',
      required: false,
      label: 'Character (single line)',
      max_length: 10,
    });
    expect(post.custom_list).toMatchObject({
      type: 'choice',
      choices: ['Green', 'Blue', 'Red', 'Yellow'].map((v) => ({ value: v, display_name: v })),
    });
    expect(post.custom_boolean.type).toBe('boolean');
    const detail = await api.call('OPTIONS', '/api/tickets/1/');
    expect(Object.keys(detail.body.actions.PUT).filter((k) => k.startsWith('custom_'))).toEqual(CUSTOM_KEYS);
  });

  it(
    'user_tickets: the list shows every custom value, the detail only the required ' + "ones (upstream's quirk)",
    async () => {
      const user = await api.createUser();
      const created = (
        await api.createTicket({ submitter_email: user.email, custom_integer: 9, custom_decimal: '1.5' })
      ).body;
      const list = await api.call('GET', '/api/user_tickets/', { auth: user.auth });
      expect(list.status).toBe(200);
      expect(list.body.count).toBe(1);
      const entry = list.body.results[0];
      expect(Object.keys(entry)).toEqual([
        'ticket',
        'id',
        'title',
        'queue',
        'status',
        'created',
        'due_date',
        'submitter',
        'kbitem',
        'secret_key',
        ...CUSTOM_KEYS,
      ]);
      expect(customOf(entry)).toEqual(customOf(created));
      const detail = await api.call('GET', `/api/user_tickets/${created.id}/`, { auth: user.auth });
      expect(detail.status).toBe(200);
      expect(customOf(detail.body)).toEqual({ custom_integer: 9 });
      expect(Object.keys(detail.body).at(-1)).toBe('custom_integer');
    },
  );
});
