/**
 * A queue's language (upstream's `Queue.locale`) and the search stemming it picks: the one place that
 * maps a locale to a text search configuration (shared/search/sql.ts makes one per language here that
 * the engine has a Snowball stemmer for). Pure: no engine, no I/O.
 */
import { blankIsNull, textField, type Field } from './fields';

/** Upstream's `Queue.locale`: CharField(max_length=10, blank=True, null=True). */
export const MAX_LOCALE_LENGTH = 10;

/**
 * A language tag's shape: a 2- or 3-letter language, then subtags of 2 to 8 letters or digits,
 * joined by `-` (Django's `pt-br`) or `_` (a POSIX locale's `fr_FR`).
 */
export const LOCALE = {
  pattern: /^[a-zA-Z]{2,3}(?:[-_][a-zA-Z0-9]{2,8})*$/,
  message: 'Enter a language code such as "en", "fr", "de" or "pt-br".',
};

/** A queue body's `locale`: null or blank for none. */
export const localeField = (): Field<string | null> =>
  blankIsNull(textField({ nullable: true, allowBlank: true, maxLength: MAX_LOCALE_LENGTH, match: LOCALE }));

/**
 * The Snowball stemmers PostgreSQL ships (its `<language>_stem` dictionaries), by the ISO 639 codes
 * of their language. The engine makes a configuration for each it has (PostgreSQL 16 has every one
 * but Estonian, 17 and later all); one it lacks falls back to English in the engine.
 */
const STEMMERS: Readonly<Record<string, string>> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  et: 'estonian',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/** The prefix of every configuration of ours (`helpdesk_english`, …): accent folding, then the stemmer. */
const CONFIG_PREFIX = 'helpdesk_';

/** The languages with a stemmer, each once (the schema makes their configurations). */
export const SEARCH_LANGUAGES: readonly string[] = [...new Set(Object.values(STEMMERS))].sort();

/** Every configuration name of ours: the only names ever written into a statement's text. */
export const SEARCH_CONFIGS: readonly string[] = SEARCH_LANGUAGES.map((l) => `${CONFIG_PREFIX}${l}`);

/** The configuration of a queue with no language, or one without a stemmer. */
export const DEFAULT_SEARCH_CONFIG = `${CONFIG_PREFIX}english`;

/**
 * The text search configuration of a queue's tickets: its locale's language (`fr`, `fr-CA`, `fr_FR`:
 * French; `pt-br`: Portuguese), English when it has none or one without a stemmer.
 */
export function searchConfigOf(locale: unknown): string {
  if (typeof locale !== 'string') return DEFAULT_SEARCH_CONFIG;
  const language = STEMMERS[locale.trim().split(/[-_]/, 1)[0]!.toLowerCase()];
  return language ? `${CONFIG_PREFIX}${language}` : DEFAULT_SEARCH_CONFIG;
}

/** Whether `name` is one of our configurations (what the engine reports is checked before it is used). */
export const isSearchConfig = (name: string): boolean => SEARCH_CONFIGS.includes(name);
