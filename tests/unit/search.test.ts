import { describe, expect, it } from 'vitest';
import { bindNamed } from '../../shared/search/driver';
import { codeSnippet, parseSearch, unmark } from '../../shared/domain/search';
import { ValidationError } from '../../shared/domain/errors';
import { SEARCH_CONFIGS, searchConfigOf } from '../../shared/domain/search-language';
import { statementsOf } from '../../shared/search/indexer';
import { APPLY, searchPage } from '../../shared/search/sql';
import { LONE_SURROGATE, wellFormed } from '../../shared/domain/unicode';

describe('parseSearch', () => {
  it('reads words, the prefix being typed, ids, tags and codes', () => {
    expect(parseSearch(undefined)).toBeUndefined();
    expect(parseSearch('   ')).toBeUndefined();
    expect(parseSearch('laptop overh')).toEqual({
      text: 'laptop',
      rest: 'laptop',
      prefix: 'overh',
      ids: [],
      codes: [],
    });
    expect(parseSearch('laptop overh ')).toMatchObject({ text: 'laptop overh' });
    expect(parseSearch('"paper jam"')).not.toHaveProperty('prefix');
    expect(parseSearch('fax OR scanner')).not.toHaveProperty('prefix');
    expect(parseSearch('printer -toner')).not.toHaveProperty('prefix');
    expect(parseSearch('#42')).toEqual({ text: '#42', rest: '#42', ids: [42], codes: [] });
    expect(parseSearch('[support-7] noisy fan')).toMatchObject({ ids: [7], text: 'noisy', prefix: 'fan' });
    expect(parseSearch('refund INV-2024-0042 please')).toMatchObject({
      codes: ['inv-2024-0042'],
      rest: 'refund',
      prefix: 'please',
    });
    expect(parseSearch('-X1-Carbon')).toMatchObject({ codes: [] });
    expect(parseSearch("it's\u0000\u0002 ok")).toMatchObject({ text: "it's", prefix: 'ok' });
  });

  it('refuses more than 200 characters or 16 words with a 400 on `search`', () => {
    expect(() => parseSearch('x'.repeat(201))).toThrow(ValidationError);
    expect(parseSearch('x'.repeat(200))).toBeDefined();
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(() => parseSearch(words(17))).toThrow(ValidationError);
    expect(parseSearch(words(16))).toBeDefined();
  });
});

describe('snippets', () => {
  it('turn the engine marks into offsets, and find a code case-insensitively', () => {
    expect(unmark('The \u0002Café\u0003 laptop \u0002overheats\u0003')).toEqual({
      text: 'The Café laptop overheats',
      highlights: [
        { start: 4, end: 8 },
        { start: 16, end: 25 },
      ],
    });
    expect(codeSnippet('see invoice INV-2024-0042 now', ['2024-0042'])).toEqual({
      text: 'see invoice INV-2024-0042 now',
      highlights: [{ start: 16, end: 25 }],
    });
    expect(codeSnippet('nothing here', ['x1'])).toBeUndefined();
  });
});

describe('bindNamed', () => {
  it('binds each name once, cast to its type, and leaves casts and literals alone', () => {
    const bound = bindNamed("SELECT :a::text, ':*', :b, :a", { a: 'x', b: true }, (_, i) => `$${i + 1}`);
    expect(bound).toEqual({
      sql: "SELECT CAST($1 AS text)::text, ':*', CAST($2 AS boolean), CAST($1 AS text)",
      names: ['a', 'b'],
    });
    expect(() => bindNamed('SELECT :missing', {}, () => '?')).toThrow(/missing/);
  });
});

describe("a queue's language picks its tickets' stemming", () => {
  it('maps a locale to its Snowball configuration by its language, English otherwise', () => {
    expect(searchConfigOf('fr')).toBe('helpdesk_french');
    expect(searchConfigOf('fr-CA')).toBe('helpdesk_french');
    expect(searchConfigOf('fr_FR')).toBe('helpdesk_french');
    expect(searchConfigOf('FR')).toBe('helpdesk_french');
    expect(searchConfigOf('pt-br')).toBe('helpdesk_portuguese');
    expect(searchConfigOf('de')).toBe('helpdesk_german');
    expect(searchConfigOf('nb-NO')).toBe('helpdesk_norwegian');
    expect(searchConfigOf('en-us')).toBe('helpdesk_english');
    for (const none of ['zh-hans', 'ja', 'xx', '', null, undefined, 7])
      expect(searchConfigOf(none)).toBe('helpdesk_english');
    expect(SEARCH_CONFIGS).toContain('helpdesk_russian');
    expect(new Set(SEARCH_CONFIGS).size).toBe(SEARCH_CONFIGS.length);
  });

  it('the indexer applies a queue only when its configuration changes, not for its reservations', () => {
    const queue = (locale: string | null, reserved: number) => ({ id: 4, title: 'Q', slug: 'q', locale, reserved });
    const change = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', oldImage?: object, newImage?: object) => ({
      eventName,
      keys: { PK: 'QUEUES', SK: 'QUEUE#000000000004' },
      ...(oldImage ? { oldImage: oldImage as Record<string, unknown> } : {}),
      ...(newImage ? { newImage: newImage as Record<string, unknown> } : {}),
    });
    const queueRows = (statements: { sql: string; params?: Record<string, unknown> }[]) =>
      statements.filter((s) => s.sql === APPLY.queues[0]).map((s) => [s.params?.rows, s.params?.removed]);
    expect(statementsOf([change('MODIFY', queue('fr', 1), queue('fr-CA', 2))])).toEqual([]);
    expect(statementsOf([change('MODIFY', queue(null, 1), queue('en', 2))])).toEqual([]);
    expect(queueRows(statementsOf([change('MODIFY', queue('fr', 1), queue('de', 1))]))).toEqual([
      ['[{"id":4,"config":"helpdesk_german"}]', '[]'],
    ]);
    expect(queueRows(statementsOf([change('INSERT', undefined, queue('xx', 0))]))).toEqual([
      ['[{"id":4,"config":"helpdesk_english"}]', '[]'],
    ]);
    expect(queueRows(statementsOf([change('REMOVE', queue('de', 0))]))).toEqual([['[]', '[4]']]);
    // A create, or a new language, followed in the same batch by a reservation.
    const reserved = change('MODIFY', queue('fr', 0), queue('fr', 1));
    expect(queueRows(statementsOf([change('INSERT', undefined, queue('fr', 0)), reserved]))).toEqual([
      ['[{"id":4,"config":"helpdesk_french"}]', '[]'],
    ]);
    expect(queueRows(statementsOf([change('MODIFY', queue(null, 0), queue('fr', 0)), reserved]))).toEqual([
      ['[{"id":4,"config":"helpdesk_french"}]', '[]'],
    ]);
    const slug = { ...change('INSERT', undefined, { id: 4 }), keys: { PK: 'QUEUES', SK: 'SLUG#q' } };
    expect(statementsOf([slug])).toEqual([]);
  });

  it("the indexer's rows are well-formed text for PostgreSQL even when a record holds a lone surrogate", () => {
    const ticket = {
      id: 9,
      title: 'half \ud83d of an emoji',
      description: 'whole 😀',
      queue: 1,
      status: 1,
      priority: 3,
    };
    const statements = statementsOf([
      { eventName: 'INSERT', keys: { PK: 'TICKET#9', SK: 'TICKET' }, newImage: { ...ticket, type: 'ticket' } },
    ]);
    const texts = statements.flatMap((s) => Object.values(s.params ?? {})).filter((v) => typeof v === 'string');
    expect(texts.join('')).toContain('half \ufffd of an emoji');
    expect(texts.join('')).toContain('whole 😀');
    // JSON.stringify writes a lone surrogate as its escape, which PostgreSQL's JSON refuses.
    for (const text of texts) expect(text).not.toMatch(/\\ud[89a-f]/i);
    expect(texts.join('')).not.toMatch(LONE_SURROGATE);
    expect(wellFormed('a\udc00b\ud800')).toBe('a\ufffdb\ufffd');
  });

  it('a search statement names only our configurations', () => {
    expect(() => searchPage('relevance', 'staff', ["helpdesk_english'; DROP TABLE x; --"])).toThrow();
    const sql = searchPage('relevance', 'public', ['helpdesk_english', 'helpdesk_french']);
    expect(sql).toContain("(t.config = 'helpdesk_french'::regconfig) IS TRUE AND t.public_doc @@ (SELECT q1 FROM q)");
    expect(sql).not.toContain('staff_doc');
  });
});
