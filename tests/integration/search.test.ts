/**
 * Ticket search (`?search=`) over HTTP on the real engine: a runtime of its own with
 * HELPDESK_SEARCH=pglite (PostgreSQL in WebAssembly, in its worker thread), fed by the table's
 * stream. Every result set is waited for (the index follows the stream), never slept for.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { call, form, unique, type Json } from './client';
import { useOwnRuntime } from './own-runtime';

const own = useOwnRuntime({ HELPDESK_SEARCH: 'pglite' });
const api = () => own.api;

const search = async (text: string, extra = '', auth?: string, path = '/api/tickets/') => {
  const reply = await api().call('GET', `${path}?search=${encodeURIComponent(text)}${extra}`, auth ? { auth } : {});
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { count: number; next: string | null; results: Json[] };
};
const ids = async (text: string, extra = '', auth?: string, path?: string) =>
  (await search(text, extra, auth, path)).results.map((t) => t.id as number);
/** Waits until `text` finds exactly `expected` (in that order). */
const finds = (text: string, expected: number[], extra = '', auth?: string, path?: string) =>
  expect.poll(() => ids(text, extra, auth, path), { timeout: 20_000, interval: 100 }).toEqual(expected);

const tag = unique('t'); // a word only this file's tickets hold, so every query can be narrowed to them
const ticket = async (fields: Record<string, unknown>) =>
  (await api().createTicket({ description: tag, ...fields })).body.id as number;

describe('relevance, language and syntax', () => {
  const t: Record<string, number> = {};
  beforeAll(async () => {
    t.laptop = await ticket({
      title: 'Laptop overheats after the update',
      description: `${tag} The fan is loud and the laptop overheats.`,
    });
    t.mention = await ticket({ title: 'Battery question', description: `${tag} Asked about a laptop battery once.` });
    t.cafe = await ticket({ title: 'Café machine broken', description: `${tag} Espresso from the café is cold` });
    t.paper = await ticket({ title: 'Paper jam in tray 2', description: `${tag} the paper jam happens daily` });
    t.jam = await ticket({ title: 'Jam of paper', description: `${tag} strawberry jam on the paper` });
    t.printer = await ticket({ title: 'Printer out of toner', description: `${tag} printer toner empty` });
    t.printer2 = await ticket({ title: 'Printer offline', description: `${tag} printer unreachable over wifi` });
    t.fax = await ticket({ title: 'Fax line noisy', description: `${tag} the fax hisses` });
    t.invoice = await ticket({
      title: 'Billing dispute',
      description: `${tag} see invoice INV-2024-0042 and model X1-Carbon`,
    });
    const all = Object.values(t).sort((a, b) => a - b);
    await vi.waitFor(async () => expect(await ids(tag, '&ordering=id&page_size=100')).toEqual(all), {
      timeout: 20_000,
      interval: 100,
    });
  });

  it('ranks a title match above a passing mention, and marks the matched words in the snippet', async () => {
    const found = (await search(`${tag} laptop overheats`)).results;
    expect(found.map((r) => r.id)).toEqual([t.laptop]);
    const [first] = (await search('laptop')).results.filter((r) => [t.laptop, t.mention].includes(r.id));
    expect(first.id).toBe(t.laptop);
    expect(first.snippet).toMatchObject({
      field: 'title',
      followup: null,
      custom_field: null,
      text: 'Laptop overheats after the update',
    });
    expect(first.snippet.highlights).toEqual([{ start: 0, end: 6 }]);
  });

  it('stems, folds accents and takes the last word as a prefix', async () => {
    expect(await ids(`${tag} laptops`)).toEqual(expect.arrayContaining([t.laptop, t.mention]));
    expect(await ids(`${tag} cafe`)).toEqual([t.cafe]);
    expect(await ids(`${tag} CAFÉ`)).toEqual([t.cafe]);
    expect(await ids(`${tag} overh`)).toEqual([t.laptop]);
    expect(await ids(`${tag} espres`)).toEqual([t.cafe]);
  });

  it('matches quoted phrases as phrases, excludes -words and takes OR', async () => {
    expect(await ids(`${tag} "paper jam"`)).toEqual([t.paper]);
    expect(await ids(`${tag} jam paper`)).toEqual(expect.arrayContaining([t.paper, t.jam]));
    expect(await ids(`${tag} printer -toner`)).toEqual([t.printer2]);
    expect((await ids(`${tag} fax OR toner`)).sort()).toEqual([t.printer, t.fax].sort());
  });

  it('finds codes by substring, and a ticket by its id or subject tag first', async () => {
    expect(await ids('2024-0042')).toEqual([t.invoice]);
    expect(await ids(`${tag} INV-2024-0042`)).toEqual([t.invoice]);
    const code = (await search('x1-carb')).results.find((r) => r.id === t.invoice)!;
    expect(
      code.snippet.text.slice(code.snippet.highlights[0].start, code.snippet.highlights[0].end).toLowerCase(),
    ).toBe('x1-carb');
    expect((await ids(String(t.fax)))[0]).toBe(t.fax);
    expect((await ids(`#${t.fax}`))[0]).toBe(t.fax);
    expect((await ids(`[support-${t.paper}] ${tag}`))[0]).toBe(t.paper);
    expect((await search(`#${t.fax}`)).results[0].snippet).toMatchObject({ field: 'id', text: `#${t.fax}` });
  });

  it('pages by number with an exact count, and takes an ordering instead of relevance', async () => {
    const first = await search(tag, '&page_size=4');
    expect(first.count).toBe(9);
    expect(first.results).toHaveLength(4);
    const third = await search(tag, '&page_size=4&page=3');
    expect(third.results).toHaveLength(1);
    expect((await api().call('GET', `/api/tickets/?search=${tag}&page_size=4&page=4`)).status).toBe(404);
    // Pages far past the end, whose offset no SQL OFFSET takes (fast-check found a 500: an int overflow).
    for (const page of ['2009906030', '99999999999999999999']) {
      const deep = await api().call('GET', `/api/tickets/?search=${tag}&page=${page}`);
      expect([deep.status, deep.body]).toEqual([404, { detail: 'Invalid page.' }]);
    }
    expect(await ids(tag, '&ordering=id&page_size=100')).toEqual(Object.values(t).sort((a, b) => a - b));
    expect(await ids(tag, '&ordering=-id&page_size=100')).toEqual(Object.values(t).sort((a, b) => b - a));
  });

  it('treats any text as a query, and answers 400 to one too long or with too many words', async () => {
    for (const text of ["'):*&|!", '\\', '%_%', '"', '-', 'OR', '<->', 'a:*', '!!(', '\u0000\u0002x']) {
      const reply = await api().call('GET', `/api/tickets/?search=${encodeURIComponent(text)}`);
      expect(reply.status, `${text}: ${reply.text}`).toBe(200);
    }
    const long = await api().call('GET', `/api/tickets/?search=${'a'.repeat(201)}`);
    expect(long.status).toBe(400);
    expect(long.body.search[0]).toMatch(/at most 200 characters/);
    const many = await api().call(
      'GET',
      `/api/tickets/?search=${encodeURIComponent(Array.from({ length: 17 }, (_, i) => `w${i}`).join(' '))}`,
    );
    expect(many.status).toBe(400);
    expect(many.body.search[0]).toMatch(/at most 16 words/);
  });
});

describe('filters', () => {
  it('combine with search, each one and all together', async () => {
    const ftag = unique('f');
    const queue = (await api().call('POST', '/api/queues/', { json: { title: 'Other', slug: unique('q') } })).body
      .id as number;
    const since = new Date(Date.now() - 1000).toISOString();
    const a = await ticket({ title: `${ftag} alpha`, priority: 1, submitter_email: 'one@example.com', assigned_to: 1 });
    const b = await ticket({ title: `${ftag} beta`, priority: 2, queue, submitter_email: 'two@example.com' });
    const c = await ticket({ title: `${ftag} gamma`, priority: 1, submitter_email: 'one@example.com' });
    await api().call('PATCH', `/api/tickets/${c}/`, { json: { status: 3 } });
    await expect.poll(() => ids(ftag, '&status=resolved'), { timeout: 20_000 }).toEqual([c]);
    expect((await ids(ftag, '&ordering=id')).sort()).toEqual([a, b, c]);
    expect(await ids(ftag, '&status=open&ordering=-id')).toEqual([b, a]);
    expect(await ids(ftag, `&queue=${queue}`)).toEqual([b]);
    expect(await ids(ftag, '&assigned_to=1')).toEqual([a]);
    expect(await ids(ftag, '&assigned_to=none&ordering=id')).toEqual([b, c]);
    expect(await ids(ftag, '&priority=1&ordering=id')).toEqual([a, c]);
    expect(await ids(ftag, '&submitter_email=one@example.com&ordering=-id')).toEqual([c, a]);
    expect(await ids(ftag, `&created_since=${since}&ordering=id`)).toEqual([a, b, c]);
    expect(await ids(ftag, '&updated_since=2999-01-01T00:00:00Z')).toEqual([]);
    expect(
      await ids(
        ftag,
        `&status=open,resolved&priority=1&submitter_email=one@example.com&queue=1&assigned_to=none` +
          `&created_since=${since}&ordering=-id`,
      ),
    ).toEqual([c]);
    const bad = await api().call('GET', `/api/tickets/?search=${ftag}&priority=9`);
    expect(bad.status).toBe(400);
  });
});

describe('what a requester may see', () => {
  it('finds their own tickets whatever the case of the address (staff filter by it the same way)', async () => {
    const ctag = unique('c');
    const user = await api().createUser({ email: `${unique('Ann.Lee')}@Example.COM` });
    const lower = await ticket({ title: `${ctag} lower`, submitter_email: user.email.toLowerCase() });
    const upper = await ticket({ title: `${ctag} upper`, submitter_email: user.email.toUpperCase() });
    await finds(ctag, [upper, lower], '', user.auth, '/api/user_tickets/'); // newest first
    await finds(ctag, [lower, upper], `&ordering=id&submitter_email=${encodeURIComponent(user.email)}`);
  });

  it('never finds or shows private followups, a private resolution, staff-only fields or private files', async () => {
    const ptag = unique('p');
    const user = await api().createUser();
    const secretField = unique('secret');
    const openField = unique('open');
    for (const [name, staffOnly] of [
      [secretField, true],
      [openField, false],
    ] as const) {
      const made = await api().call('POST', '/api/custom-fields/', {
        json: { label: 'L', name, data_type: 'varchar', max_length: 40, staff_only: staffOnly },
      });
      expect(made.status, made.text).toBe(201);
    }
    const id = await ticket({
      title: `${ptag} Printer`,
      submitter_email: user.email,
      [`custom_${secretField}`]: 'zanzibar',
      [`custom_${openField}`]: 'quokka',
    });
    const other = await ticket({ title: `${ptag} someone else`, submitter_email: 'else@example.com' });
    const priv = await api().call('POST', '/api/followups/', {
      form: form({ ticket: id, title: 'internal', comment: 'xylophone hidden', public: false }, [
        { field: 'attachments', name: 'kumquat.txt', content: 'x' },
      ]),
    });
    expect(priv.status, priv.text).toBe(201);
    const pub = await api().call('POST', '/api/followups/', {
      json: { ticket: id, title: 'reply', comment: 'walrus visible', public: true },
    });
    expect(pub.status, pub.text).toBe(201);
    // Staff find all of it.
    for (const word of ['xylophone', 'zanzibar', 'quokka', 'walrus', 'kumquat']) await finds(`${ptag} ${word}`, [id]);
    expect((await search('xylophone')).results[0].snippet).toMatchObject({
      field: 'followup_comment',
      followup: priv.body.id,
      text: 'xylophone hidden',
    });
    expect((await search('zanzibar')).results[0].snippet).toMatchObject({
      field: 'custom_field',
      custom_field: secretField,
    });
    // The requester finds the public text of their own tickets only, and no snippet holds a private word.
    const mine = (text: string) => ids(text, '', user.auth, '/api/user_tickets/');
    expect(await mine(`${ptag} walrus`)).toEqual([id]);
    expect(await mine(`${ptag} quokka`)).toEqual([id]);
    expect(await mine(ptag)).toEqual([id]);
    for (const word of ['xylophone', 'zanzibar', 'kumquat', 'internal', 'hidden'])
      expect(await mine(word), word).toEqual([]);
    expect(await mine(`${ptag} someone`)).toEqual([]);
    expect(await mine(String(other))).toEqual([]);
    const shown = (await search(`${ptag} walrus OR printer`, '', user.auth, '/api/user_tickets/')).results;
    expect(JSON.stringify(shown)).not.toMatch(/xylophone|zanzibar|kumquat/);
    expect(shown[0].snippet.field).toMatch(/title|followup_comment/);
    // A followup turned private leaves the requester's search.
    expect((await api().call('PATCH', `/api/followups/${pub.body.id}/`, { json: { public: false } })).status).toBe(200);
    await finds(`${ptag} walrus`, [], '', user.auth, '/api/user_tickets/');
    expect(await ids(`${ptag} walrus`)).toEqual([id]);
    // The ticket lists' search is staff's.
    expect((await api().call('GET', `/api/tickets/?search=${ptag}`, { auth: user.auth })).status).toBe(403);
  });
});

describe('changes', () => {
  it('a delete and a merge leave the results; an edit shows within seconds of its answer', async () => {
    const ctag = unique('c');
    const gone = await ticket({ title: `${ctag} to delete` });
    const merged = await ticket({ title: `${ctag} to merge` });
    const target = await ticket({ title: `${ctag} the target` });
    await finds(ctag, [target, merged, gone]);
    expect((await api().call('DELETE', `/api/tickets/${gone}/`)).status).toBe(204);
    expect((await api().call('PATCH', `/api/tickets/${merged}/`, { json: { merged_to: target } })).status).toBe(200);
    await finds(ctag, [target]);
    const edited = Date.now();
    expect(
      (await api().call('PATCH', `/api/tickets/${target}/`, { json: { title: `${ctag} renamed narwhal` } })).status,
    ).toBe(200);
    await finds(`${ctag} narwhal`, [target]);
    expect(Date.now() - edited).toBeLessThan(10_000);
  });
});

describe("a queue's language picks its tickets' stemming", () => {
  const newQueue = async (locale: string | null) => {
    const slug = unique('q');
    const reply = await api().call('POST', '/api/queues/', { json: { title: slug, slug, locale } });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.id as number;
  };
  const inQueue = async (queue: number, title: string, words: string) =>
    (await api().createTicket({ queue, title, description: words })).body.id as number;
  const byId = '&ordering=id';
  const FRENCH = 'Le journal des erreurs'; // French "journaux" stems to journal; English keeps "journaux"
  const GERMAN = 'Die Verbindung bricht ab'; // German "Verbindungen" stems to verbind; English to verbindungen

  it("French and German inflections find their queues' tickets, not the same text in other queues", async () => {
    const ltag = unique('l');
    const [fr, de, en, unknown] = await Promise.all([
      newQueue('fr-CA'),
      newQueue('de'),
      newQueue(null),
      newQueue('xx'),
    ]);
    const french = await inQueue(fr, FRENCH, ltag);
    const german = await inQueue(de, GERMAN, ltag);
    const english = [await inQueue(en, FRENCH, ltag), await inQueue(en, GERMAN, ltag)];
    const other = [await inQueue(unknown, FRENCH, ltag), await inQueue(unknown, GERMAN, ltag)];
    await finds(ltag, [french, german, ...english, ...other], byId);
    // A queue's item and its tickets' may reach the index in either order (stream shards): waited for.
    await finds(`${ltag} journaux`, [french]);
    await finds(`${ltag} Verbindungen`, [german]);
    // Each text is found in every queue by its own words.
    expect(await ids(`${ltag} journal`, byId)).toEqual([french, english[0], other[0]]);
    expect(await ids(`${ltag} Verbindung`, byId)).toEqual([german, english[1], other[1]]);
    // The snippet marks the inflected word with its queue's stemming (the tag, a code, would be marked first).
    const hit = (await search('journaux')).results.find((r) => r.id === french)!;
    expect(hit.snippet.field).toBe('title');
    const marked = hit.snippet.highlights.map((h: { start: number; end: number }) =>
      String(hit.snippet.text).slice(h.start, h.end),
    );
    expect(marked).toEqual(['journal']);
  });

  it('-word excludes in each language at once (one query per configuration, not one for all)', async () => {
    const xtag = unique('x');
    const [fr, de] = await Promise.all([newQueue('fr'), newQueue('de-AT')]);
    const printer = await inQueue(fr, 'journal imprimante', xtag);
    const screen = await inQueue(fr, 'journal écran', xtag);
    const drucker = await inQueue(de, 'Verbindung Drucker', xtag);
    const monitor = await inQueue(de, 'Verbindung Bildschirm', xtag);
    await finds(xtag, [printer, screen, drucker, monitor], byId);
    await finds(`${xtag} journaux OR ${xtag} Verbindungen`, [printer, screen, drucker, monitor], byId);
    // French stems "imprimantes" to imprim (English: imprimant), German "Druckers" to druck (English: drucker).
    expect(await ids(`${xtag} -imprimantes -Druckers`, byId)).toEqual([screen, monitor]);
    expect(await ids(`${xtag} -imprimantes`, byId)).toEqual([screen, drucker, monitor]);
  });

  it("a queue's language changed re-indexes its tickets, and back", async () => {
    const rtag = unique('r');
    const queue = await newQueue(null);
    const tickets = [await inQueue(queue, FRENCH, rtag), await inQueue(queue, `${FRENCH} encore`, rtag)];
    await finds(rtag, tickets, byId);
    expect(await ids(`${rtag} journaux`)).toEqual([]);
    const patch = async (locale: string | null) =>
      expect((await api().call('PATCH', `/api/queues/${queue}/`, { json: { locale } })).status).toBe(200);
    await patch('fr_FR');
    await finds(`${rtag} journaux`, tickets, byId);
    await patch('');
    await finds(`${rtag} journaux`, [], byId);
    expect(await ids(`${rtag} journal`, byId)).toEqual(tickets);
  });
});

describe('search off', () => {
  it('answers 400 naming the setting', async () => {
    const reply = await call('GET', '/api/tickets/?search=printer'); // the shared runtime: HELPDESK_SEARCH=off
    expect(reply.status).toBe(400);
    expect(reply.body.search[0]).toMatch(/HELPDESK_SEARCH/);
    expect((await call('GET', '/api/tickets/?search=')).status).toBe(200);
  });
});
