/**
 * Text helpers that run in linear time on any input, for the places where a regular expression
 * anchored at the end (`/[ \t]+$/gm`, `/<([^>]+)>\s*$/`) would retry from every position: on a
 * stranger's text (mail in) that is quadratic (issue 32; lint's regexp/no-super-linear-move).
 */

/** `text` without the run of `chars` at its end. */
export function trimEndChars(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}

/** `text` without the run of `chars` at its start. */
export function trimStartChars(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start]!)) start++;
  return text.slice(start);
}

/** Every line of `text` without its trailing spaces and tabs (what `/[ \t]+$/gm` removes). */
export function trimLineEnds(text: string): string {
  return text
    .split('\n')
    .map((line) => trimEndChars(line, ' \t'))
    .join('\n');
}

/**
 * The address in a value ending `<address>` (trailing whitespace allowed), with what stands before
 * it; undefined when the value does not end so (an address between brackets holds no `<` or `>`).
 */
export function angleAddress(value: string): { before: string; address: string } | undefined {
  const text = value.trimEnd();
  if (!text.endsWith('>')) return undefined;
  const open = text.lastIndexOf('<');
  const address = open < 0 ? '' : text.slice(open + 1, -1);
  if (!address || address.includes('>')) return undefined;
  return { before: text.slice(0, open), address };
}
