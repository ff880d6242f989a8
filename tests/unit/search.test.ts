import { describe, expect, it } from 'vitest';
import { bindNamed } from '../../shared/search/driver';
import { codeSnippet, parseSearch, unmark } from '../../shared/domain/search';
import { ValidationError } from '../../shared/domain/errors';

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
