/**
 * Text that is not Unicode: a UTF-16 surrogate without its pair. JSON's `\ud800` escape can carry one into a string;
 * PostgreSQL's JSON (the search index), mail and most clients refuse it.
 */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** `text` with each lone surrogate replaced by U+FFFD, as `String.prototype.toWellFormed` does (ES2024). */
export const wellFormed = (text: string): string =>
  LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
