import { describe, expect, it } from 'vitest';
import type { CustomFieldDefinition } from '../../shared/domain/custom-fields';
import { ParseError } from '../../shared/domain/errors';
import {
  definitionsFingerprint,
  ifMatchHolds,
  ifNoneMatchMatches,
  namesRevisionWithOtherDefinitions,
  ticketRevision,
  parseETagList,
  requireIfMatch,
  ticketETag,
} from '../../shared/domain/etag';

const field = (name: string, extra: Partial<CustomFieldDefinition> = {}) =>
  ({
    name,
    key: `k-${name}`,
    label: name,
    help_text: '',
    data_type: 'varchar',
    max_length: 10,
    decimal_places: null,
    ...extra,
  }) as CustomFieldDefinition;

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
  it('are strong, name the revision, and change with the custom field definitions', () => {
    const none = ticketETag('3.1', []);
    expect(none).toMatch(/^"3\.1-[\w-]{10}"$/);
    expect(ticketETag('3.2', [])).not.toBe(none);
    expect(ticketETag('4.1', [])).not.toBe(none);
    expect(ticketETag('3.1', [field('os')])).not.toBe(none);
    expect(ticketETag('3.1', [field('os', { max_length: 11 })])).not.toBe(ticketETag('3.1', [field('os')]));
  });

  it('name the version and the size of the collection', () => {
    expect(ticketRevision({ version: 4, followups: [1, 2], attachments: [3] })).toBe('4.3');
  });

  it('do not depend on the order of definitions or of their attributes', () => {
    const a = field('a');
    const reordered = Object.fromEntries(Object.entries(field('b')).reverse()) as unknown as CustomFieldDefinition;
    expect(definitionsFingerprint([a, field('b')])).toBe(definitionsFingerprint([reordered, a]));
  });
});

describe('If-Match', () => {
  const current = ticketETag('7.1', []);

  it('holds without the header, for *, and for a list naming the current tag', () => {
    expect(ifMatchHolds(undefined, current)).toBe(true);
    expect(ifMatchHolds('*', current)).toBe(true);
    expect(ifMatchHolds(current, current)).toBe(true);
    expect(ifMatchHolds(`"old", ${current}`, current)).toBe(true);
  });

  it('fails for another tag, and for the current tag marked weak (strong comparison)', () => {
    expect(ifMatchHolds(ticketETag('6.1', []), current)).toBe(false);
    expect(ifMatchHolds(`W/${current}`, current)).toBe(false);
    expect(() => requireIfMatch(ticketETag('6.1', []), current)).toThrow(expect.objectContaining({ status: 412 }));
  });

  it('answers 400 to a malformed header rather than ignoring it', () => {
    expect(() => ifMatchHolds('7-abc', current)).toThrow(ParseError);
  });

  it('tells when the client names this revision with other definitions', () => {
    expect(namesRevisionWithOtherDefinitions(ticketETag('7.1', [field('x')]), '7.1', current)).toBe(true);
    expect(namesRevisionWithOtherDefinitions(ticketETag('6.1', [field('x')]), '7.1', current)).toBe(false);
    expect(namesRevisionWithOtherDefinitions(current, '7.1', current)).toBe(false);
    expect(namesRevisionWithOtherDefinitions(`W/${ticketETag('7.1', [field('x')])}`, '7.1', current)).toBe(false);
    expect(namesRevisionWithOtherDefinitions('*', '7.1', current)).toBe(false);
  });
});

describe('If-None-Match', () => {
  const current = ticketETag('2.1', []);

  it('matches * and the current tag, weak or strong (weak comparison)', () => {
    expect(ifNoneMatchMatches('*', current)).toBe(true);
    expect(ifNoneMatchMatches(current, current)).toBe(true);
    expect(ifNoneMatchMatches(`"x", W/${current}`, current)).toBe(true);
  });

  it('does not match another tag, no header, or a malformed one', () => {
    expect(ifNoneMatchMatches(ticketETag('1.1', []), current)).toBe(false);
    expect(ifNoneMatchMatches(undefined, current)).toBe(false);
    expect(ifNoneMatchMatches('garbage', current)).toBe(false);
  });
});
