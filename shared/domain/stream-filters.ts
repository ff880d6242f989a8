/**
 * Event source mapping filters as data (Lambda's filter rule syntax, the part this project uses: a
 * list of accepted values, each a string or `{ prefix }`, at a path of the stream record), so that
 * one pattern is both the filter the CDK stack gives the table stream's one reader and the test the
 * reader applies in process to give each consumer only its records. Pure: no AWS, no I/O.
 */

/** An accepted value: the string itself, or any string starting with `prefix`. */
export type FilterValue = string | { readonly prefix: string };

/** A pattern: at each key, a nested pattern or the list of values accepted there. */
export interface FilterPattern {
  readonly [key: string]: FilterPattern | readonly FilterValue[];
}

const accepts = (values: readonly FilterValue[], value: unknown) =>
  typeof value === 'string' && values.some((v) => (typeof v === 'string' ? v === value : value.startsWith(v.prefix)));

/** Whether a stream record (as Lambda's event or the Streams API carries it) passes `pattern`, as Lambda decides. */
export function matchesPattern(pattern: FilterPattern, record: unknown): boolean {
  if (record === null || typeof record !== 'object') return false;
  const fields = record as Record<string, unknown>;
  return Object.entries(pattern).every(([key, rule]) =>
    Array.isArray(rule)
      ? accepts(rule as readonly FilterValue[], fields[key])
      : matchesPattern(rule as FilterPattern, fields[key]),
  );
}

/** Whether a record passes any of `patterns` (a mapping's filters are ORed). */
export const matchesAny = (patterns: readonly FilterPattern[], record: unknown): boolean =>
  patterns.some((pattern) => matchesPattern(pattern, record));

/** Every path of a pattern to its values, as `a.b.c`. */
function leaves(pattern: FilterPattern, at = ''): Map<string, readonly FilterValue[]> {
  const out = new Map<string, readonly FilterValue[]>();
  for (const [key, rule] of Object.entries(pattern)) {
    const path = at ? `${at}.${key}` : key;
    if (Array.isArray(rule)) out.set(path, rule as readonly FilterValue[]);
    else for (const [p, v] of leaves(rule as FilterPattern, path)) out.set(p, v);
  }
  return out;
}

function patternOf(paths: Map<string, readonly FilterValue[]>): FilterPattern {
  const root: Record<string, unknown> = {};
  for (const [path, values] of paths) {
    const keys = path.split('.');
    let node = root;
    for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[keys.at(-1)!] = values;
  }
  return root as FilterPattern;
}

const same = (a: readonly FilterValue[], b: readonly FilterValue[]) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The fewest patterns that pass what `patterns` pass together (Lambda allows a mapping 5 filters
 * unless raised): repeats dropped, and two patterns over the same paths that differ in one path's
 * values made one, accepting the values of both there.
 */
export function mergedPatterns(patterns: readonly FilterPattern[]): FilterPattern[] {
  const merged: Map<string, readonly FilterValue[]>[] = [];
  for (const pattern of patterns) {
    const next = leaves(pattern);
    const into = merged.find((m) => {
      if (m.size !== next.size || [...next.keys()].some((p) => !m.has(p))) return false;
      return [...next].filter(([p, v]) => !same(m.get(p)!, v)).length <= 1;
    });
    if (!into) {
      merged.push(next);
      continue;
    }
    for (const [path, values] of next) {
      const had = into.get(path)!;
      if (!same(had, values))
        into.set(path, [...had, ...values.filter((v) => !had.some((h) => JSON.stringify(h) === JSON.stringify(v)))]);
    }
  }
  return merged.map(patternOf);
}
