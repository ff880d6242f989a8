import { describe, expect, it } from 'vitest';
import type { CustomFieldDefinition } from '../../shared/domain/custom-fields';
import { ParseError } from '../../shared/domain/errors';
import {
  definitionsFingerprint,
  ifMatchHolds,
  ifNoneMatchMatches,
  namesVersionWithOtherDefinitions,
  parseETagList,
  requireIfMatch,
  ticketETag,
} from '../../shared/domain/etag';

const field = (name: string, extra: Partial<CustomFieldDefinition> = {}) =>
  ({ name, key: `k-${name}`, label: name, help_text: '', data_type: 'varchar', max_length: 10, decimal_places: null, ...extra }) as CustomFieldDefinition;

describe('parseETagList', () => {
  it('reads *, one tag, and lists of strong and weak tags', () => {
    expect(parseETagList('*')).toBe('*');
    expect(parseETagList(' * ')).toBe('*');
    expect(parseETagList('"abc"')).toEqual([{ weak: false, opaque: 'abc' }]);
    expect(parseETagList('W/"a", "b" ,W/""')).toEqual([
      { weak: true, opaque: 'a' },
      { weak: false, opaque: 'b' },
      { weak: true, opaque: '' },
    ]);
  });

  it('keeps commas inside a tag, and allows empty list elements', () => {
    expect(parseETagList('"a,b", , "c"')).toEqual([
      { weak: false, opaque: 'a,b' },
      { weak: false, opaque: 'c' },
    ]);
  });

  it('refuses unquoted tags, missing separators, stray text and empty values', () => {
    for (const bad of ['abc', '"a" "b"', '"a"x', 'w/"a"', '"a', '', ' , ', '*, "a"', '"a\u0001"']) {
      expect(parseETagList(bad), bad).toBeUndefined();
    }
  });
});

describe('ticket tags', () => {
  it('are strong, name the version, and change with the custom field definitions', () => {
    const none = ticketETag(3, []);
    expect(none).toMatch(/^"3-[\w-]{10}"$/);
    expect(ticketETag(4, [])).not.toBe(none);
    expect(ticketETag(3, [field('os')])).not.toBe(none);
    expect(ticketETag(3, [field('os', { max_length: 11 })])).not.toBe(ticketETag(3, [field('os')]));
  });

  it('do not depend on the order of definitions or of their attributes', () => {
    const a = field('a');
    const reordered = Object.fromEntries(Object.entries(field('b')).reverse()) as unknown as CustomFieldDefinition;
    expect(definitionsFingerprint([a, field('b')])).toBe(definitionsFingerprint([reordered, a]));
  });
});

describe('If-Match', () => {
  const current = ticketETag(7, []);

  it('holds without the header, for *, and for a list naming the current tag', () => {
    expect(ifMatchHolds(undefined, current)).toBe(true);
    expect(ifMatchHolds('*', current)).toBe(true);
    expect(ifMatchHolds(current, current)).toBe(true);
    expect(ifMatchHolds(`"old", ${current}`, current)).toBe(true);
  });

  it('fails for another tag, and for the current tag marked weak (strong comparison)', () => {
    expect(ifMatchHolds(ticketETag(6, []), current)).toBe(false);
    expect(ifMatchHolds(`W/${current}`, current)).toBe(false);
    expect(() => requireIfMatch(ticketETag(6, []), current)).toThrow(expect.objectContaining({ status: 412 }));
  });

  it('answers 400 to a malformed header rather than ignoring it', () => {
    expect(() => ifMatchHolds('7-abc', current)).toThrow(ParseError);
  });

  it('tells when the client names this version with other definitions', () => {
    expect(namesVersionWithOtherDefinitions(ticketETag(7, [field('x')]), 7, current)).toBe(true);
    expect(namesVersionWithOtherDefinitions(ticketETag(6, [field('x')]), 7, current)).toBe(false);
    expect(namesVersionWithOtherDefinitions(current, 7, current)).toBe(false);
    expect(namesVersionWithOtherDefinitions(`W/${ticketETag(7, [field('x')])}`, 7, current)).toBe(false);
    expect(namesVersionWithOtherDefinitions('*', 7, current)).toBe(false);
  });
});

describe('If-None-Match', () => {
  const current = ticketETag(2, []);

  it('matches * and the current tag, weak or strong (weak comparison)', () => {
    expect(ifNoneMatchMatches('*', current)).toBe(true);
    expect(ifNoneMatchMatches(current, current)).toBe(true);
    expect(ifNoneMatchMatches(`"x", W/${current}`, current)).toBe(true);
  });

  it('does not match another tag, no header, or a malformed one', () => {
    expect(ifNoneMatchMatches(ticketETag(1, []), current)).toBe(false);
    expect(ifNoneMatchMatches(undefined, current)).toBe(false);
    expect(ifNoneMatchMatches('garbage', current)).toBe(false);
  });
});
