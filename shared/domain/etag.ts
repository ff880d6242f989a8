/**
 * Entity tags of a ticket and the conditional request headers (RFC 9110 §8.8.3, §13.1.1, §13.1.2).
 *
 * A ticket's tag is strong: `"<version>.<size>-<definitions>"`. `version` is a counter on the ticket
 * item that every write of it, and every edit or delete in its collection, increments; `size` is
 * how many followups and attachments the collection holds, which is what an addition changes
 * (additions do not write the ticket item, so that concurrent ones never conflict). Within one
 * version the size only grows, so the pair changes whenever the stored data behind GET changes and
 * never comes back. `definitions` is a fingerprint of the
 * custom field definitions, because they decide which `custom_*` keys GET shows and how: adding a
 * field changes every ticket's body without writing any ticket.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import type { CustomFieldDefinition } from './custom-fields';
import { ParseError, PreconditionFailed } from './errors';

export interface EntityTag {
  weak: boolean;
  /** The opaque tag between the quotes. */
  opaque: string;
}

const fingerprints = new WeakMap<CustomFieldDefinition[], string>();

/** A short fingerprint of the definitions (memoised per list: the store caches the list it returns). */
export function definitionsFingerprint(defs: CustomFieldDefinition[]): string {
  let fp = fingerprints.get(defs);
  if (fp === undefined) {
    const sorted = [...defs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    fp = createHash('sha256').update(canonicalJson(sorted)).digest('base64url').slice(0, 10);
    fingerprints.set(defs, fp);
  }
  return fp;
}

/** What a ticket's tag says of its stored data: `<version>.<size>` (see above). */
export function ticketRevision(collection: { version: number; followups: unknown[]; attachments: unknown[] }): string {
  return `${collection.version}.${collection.followups.length + collection.attachments.length}`;
}

export function ticketETag(revision: string, defs: CustomFieldDefinition[]): string {
  return `"${revision}-${definitionsFingerprint(defs)}"`;
}

/** The revision a ticket tag names (undefined for a tag this API did not make). */
function revisionOf(tag: EntityTag): string | undefined {
  return /^(\d{1,15}\.\d{1,15})-/.exec(tag.opaque)?.[1];
}

/**
 * Parses `*` or a list of entity tags (`"a", W/"b"`); undefined when the value is malformed. The
 * opaque part may contain commas, so the list is read tag by tag rather than split at commas.
 */
export function parseETagList(value: string): '*' | EntityTag[] | undefined {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  const separator = /[ \t]*(?:,[ \t]*)*/y; // the list rule allows empty elements: `"a", , "b"`
  const tag = /(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/y;
  let position = 0;
  const skip = () => {
    separator.lastIndex = position;
    separator.exec(value);
    position = separator.lastIndex;
  };
  skip();
  while (position < value.length) {
    tag.lastIndex = position;
    const m = tag.exec(value);
    if (!m) return undefined;
    tags.push({ weak: !!m[1], opaque: m[2]! });
    position = tag.lastIndex;
    const before = position;
    skip();
    if (position < value.length && !value.slice(before, position).includes(',')) return undefined;
  }
  return tags.length ? tags : undefined;
}

function parsed(tag: string): EntityTag {
  return (parseETagList(tag) as EntityTag[])[0]!;
}

/** Strong comparison: both tags strong and their opaque parts equal. */
export function strongMatch(a: EntityTag, b: EntityTag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/** Weak comparison: opaque parts equal, weak or not. */
export function weakMatch(a: EntityTag, b: EntityTag): boolean {
  return a.opaque === b.opaque;
}

export const IF_MATCH_MALFORMED = 'Malformed If-Match header: expected "*" or a list of quoted entity tags.';

/**
 * Whether an `If-Match` precondition holds for an existing resource whose tag is `current`: no
 * header, `*`, or a listed tag that matches strongly (so a weak tag never does). A malformed header
 * is a 400, not a silent pass.
 */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined) return true;
  const list = parseETagList(header);
  if (list === undefined) throw new ParseError(IF_MATCH_MALFORMED);
  if (list === '*') return true;
  const tag = parsed(current);
  return list.some((t) => strongMatch(t, tag));
}

/**
 * Whether the `If-Match` header lists a strong tag for `revision` made with other custom field
 * definitions than `current`'s: then the caller's cached definitions may be the stale ones.
 */
export function namesRevisionWithOtherDefinitions(
  header: string | undefined,
  revision: string,
  current: string,
): boolean {
  const list = header === undefined ? undefined : parseETagList(header);
  if (!Array.isArray(list)) return false;
  const tag = parsed(current);
  return list.some((t) => !t.weak && revisionOf(t) === revision && t.opaque !== tag.opaque);
}

/** Throws 412 unless the `If-Match` precondition holds (see ifMatchHolds). */
export function requireIfMatch(header: string | undefined, current: string): void {
  if (!ifMatchHolds(header, current)) throw new PreconditionFailed();
}

/**
 * Whether `If-None-Match` names the current representation (weak comparison, `*` for any), so a
 * GET may answer 304. A malformed header is ignored: the full answer is never wrong.
 */
export function ifNoneMatchMatches(header: string | undefined, current: string): boolean {
  if (header === undefined) return false;
  const list = parseETagList(header);
  if (list === undefined) return false;
  if (list === '*') return true;
  const tag = parsed(current);
  return list.some((t) => weakMatch(t, tag));
}
