/**
 * Ticket search (`?search=` on the ticket lists): what a query text asks for, and what of a ticket
 * is searched. Pure; the engine (PostgreSQL full-text search: shared/search/) runs it. The text is
 * never spliced into the engine's query language: websearch_to_tsquery parses the words, and the
 * prefix of the last word is a lexeme quoted by the engine (quote_literal), built from letters and
 * digits only.
 */
import { ValidationError } from './errors';
import type { Attachment, Followup, Ticket } from './records';

/** The longest query text, in characters. */
export const SEARCH_MAX_LENGTH = 200;
/** The most terms (words, quoted phrases, `OR`s) one query may have. */
export const SEARCH_MAX_TERMS = 16;

export interface SearchQuery {
  /** The words for websearch_to_tsquery (phrases in quotes, `-word`, `OR`), tags taken out. */
  text: string;
  /** The last word's letters and digits, matched as a prefix (search as you type). */
  prefix?: string;
  /** Ticket ids named (`123`, `#123`, `[support-123]`): those tickets first. */
  ids: number[];
  /** Codes (a digit among letters or dashes: `INV-2024-0042`, `X1-Carbon`) matched by substring, lower case. */
  codes: string[];
  /** `text` without the codes: what the rest of a query matched through its codes must match as words. */
  rest: string;
}

const ID = /^#?(\d{1,12})$/;
const TAG = /\[[\p{L}\p{N}_-]{1,64}?-(\d{1,12})\]/gu;
const WORD = /^[\p{L}\p{N}]+$/u;
const CODE = /^(?=[^\d]*\d)(?=.*[\p{L}-])[\p{L}\p{N}][\p{L}\p{N}./_-]{2,63}$/u;
/** Control characters become spaces: no one searches for them, and U+0002 and U+0003 mark the snippets' words. */
const withoutControls = (text: string) =>
  Array.from(text, (ch) => (ch.charCodeAt(0) < 32 || ch === '\u007f' ? ' ' : ch)).join('');

/** The query `raw` asks for, or undefined when it asks for nothing (absent or blank: no search). */
export function parseSearch(raw: string | undefined): SearchQuery | undefined {
  if (raw === undefined) return undefined;
  const cleaned = withoutControls(raw).trim();
  if (!cleaned) return undefined;
  if ([...cleaned].length > SEARCH_MAX_LENGTH) {
    throw new ValidationError({
      search: [`Ensure this value has at most ${SEARCH_MAX_LENGTH} characters (it has ${[...cleaned].length}).`],
    });
  }
  const ids: number[] = [];
  const text = cleaned.replace(TAG, (_, id: string) => (ids.push(Number(id)), ' ')).trim();
  const terms = text.split(/\s+/).filter(Boolean);
  if (terms.length > SEARCH_MAX_TERMS)
    throw new ValidationError({ search: [`Use at most ${SEARCH_MAX_TERMS} words (this has ${terms.length}).`] });
  const id = ID.exec(text);
  if (id) ids.push(Number(id[1]));
  const isCode = (t: string) => CODE.test(t) && !ID.test(t);
  const codes = terms.filter(isCode).map((t) => t.toLowerCase());
  // The last word is a prefix when it is a plain word being typed: not in quotes, not excluded, not OR.
  const last = terms.at(-1);
  const quotes = (text.match(/"/g) ?? []).length;
  // With an `OR`, a prefix ANDed on would change what it joins: no prefix then.
  const asPrefix =
    last !== undefined &&
    WORD.test(last) &&
    !terms.some((t) => t.toUpperCase() === 'OR') &&
    quotes % 2 === 0 &&
    !/[\s"]$/.test(raw) &&
    !id;
  const words = asPrefix ? terms.slice(0, -1) : terms;
  return {
    text: words.join(' '),
    rest: words.filter((t) => !isCode(t)).join(' '),
    ...(asPrefix ? { prefix: last.toLowerCase() } : {}),
    ids: [...new Set(ids)],
    codes: [...new Set(codes)],
  };
}

/**
 * A code's LIKE pattern on the index's lower-cased, accent-folded text: anywhere, `%`, `_` and `\\` taken literally.
 */
export function likePattern(code: string): string {
  return `%${code
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\\%_]/g, '\\$&')}%`;
}

/** Which part of a ticket a snippet comes from. */
export const SNIPPET_FIELDS = [
  'id',
  'title',
  'description',
  'resolution',
  'submitter_email',
  'followup_title',
  'followup_comment',
  'custom_field',
  'attachment',
] as const;
export type SnippetField = (typeof SNIPPET_FIELDS)[number];

/**
 * Why a result matched: a short text of the field that matched, its matched words at `highlights` (character offsets,
 * end excluded).
 */
export interface Snippet {
  field: SnippetField;
  /** The followup the text is of (followup_title, followup_comment, attachment). */
  followup: number | null;
  /** The custom field's name (custom_field). */
  custom_field: string | null;
  text: string;
  highlights: { start: number; end: number }[];
}

/**
 * One searchable text of a ticket, as the index keeps it: `item` is the table item it came from
 * (replaced whole when that item changes), `private` whether only staff may see it. A custom field
 * value's visibility is its definition's (`field_key`), resolved by the engine.
 */
export interface SearchPart {
  ticket: number;
  item: string;
  field: Exclude<SnippetField, 'id'>;
  followup: number | null;
  field_key: string | null;
  private: boolean;
  text: string;
}

/** The longest text of one part that is indexed (PostgreSQL keeps positions up to 16,383 in a tsvector). */
export const PART_MAX_LENGTH = 20_000;

const part = (
  ticket: number,
  item: string,
  field: SearchPart['field'],
  text: string | null | undefined,
  rest: Partial<SearchPart> = {},
): SearchPart[] => {
  const clean = text ? withoutControls(text).trim() : undefined;
  return clean
    ? [
        {
          ticket,
          item,
          field,
          followup: null,
          field_key: null,
          private: false,
          ...rest,
          text: clean.slice(0, PART_MAX_LENGTH),
        },
      ]
    : [];
};

export const TICKET_ITEM = 'ticket';
export const followupItemName = (id: number) => `followup#${id}`;
export const attachmentItemName = (id: number) => `attachment#${id}`;

/** A followup's parts (its title and comment), private unless it is public. */
export function followupParts(f: Followup, item = followupItemName(f.id)): SearchPart[] {
  const rest = { followup: f.id, private: !f.public };
  return [
    ...part(f.ticket, item, 'followup_title', f.title, rest),
    ...part(f.ticket, item, 'followup_comment', f.comment, rest),
  ];
}

/** The ticket item's parts: its own fields, its custom field values and the opening followup it may hold. */
export function ticketParts(t: Ticket, opening: Followup | undefined): SearchPart[] {
  return [
    ...part(t.id, TICKET_ITEM, 'title', t.title),
    ...part(t.id, TICKET_ITEM, 'description', t.description),
    ...part(t.id, TICKET_ITEM, 'resolution', t.resolution, { private: t.resolution_private === true }),
    ...part(t.id, TICKET_ITEM, 'submitter_email', t.submitter_email),
    ...Object.entries(t.custom ?? {}).flatMap(([key, value]) =>
      part(t.id, TICKET_ITEM, 'custom_field', value, { field_key: key }),
    ),
    ...(opening ? followupParts(opening, TICKET_ITEM) : []),
  ];
}

/** An attachment's file name; the engine hides it from requesters when its followup is private. */
export function attachmentParts(a: Attachment): SearchPart[] {
  return part(a.ticket, attachmentItemName(a.id), 'attachment', a.filename, { followup: a.followup });
}

/** The marks the engine puts around matched words (ts_headline's StartSel and StopSel). */
export const MARK_START = '\u0002';
export const MARK_END = '\u0003';

/** A marked text (from ts_headline) as text and highlights. */
export function unmark(marked: string): Pick<Snippet, 'text' | 'highlights'> {
  let text = '';
  const highlights: Snippet['highlights'] = [];
  let start = -1;
  for (const ch of marked) {
    if (ch === MARK_START) start = text.length;
    else if (ch === MARK_END && start >= 0) {
      if (text.length > start) highlights.push({ start, end: text.length });
      start = -1;
    } else text += ch;
  }
  return { text, highlights };
}

/** The longest snippet cut around a code's match, in characters each side. */
const AROUND = 60;

/** A snippet of `text` around the first occurrence of one of `codes` (case-insensitive), or undefined. */
export function codeSnippet(text: string, codes: readonly string[]): Pick<Snippet, 'text' | 'highlights'> | undefined {
  const lower = text.toLowerCase();
  for (const code of codes) {
    const at = lower.indexOf(code);
    if (at < 0 || lower.length !== text.length) continue;
    const from = Math.max(0, at - AROUND);
    const cut = text.slice(from, at + code.length + AROUND);
    return { text: cut, highlights: [{ start: at - from, end: at - from + code.length }] };
  }
  return undefined;
}
