/** Terminal input and output: a prompt without echo, standard input's first line, wrapped text, tables. */
import { Failure, Interrupted, type Context } from './command';

/** Words of `text` in lines of at most `width` characters; lines after the first start with `indent`. */
export function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines.map((l, i) => (i ? indent + l : l)).join('\n');
}

/** The bar's width in characters. */
const BAR = 30;

/** A progress bar: `[####......] 120/400 tickets`, and the rate when given (per second). */
export function progressBar(done: number, total: number, unit: string, perSecond?: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(share * BAR);
  const rate = perSecond === undefined ? '' : `, ${Math.round(perSecond)}/s`;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${done}/${total} ${unit}${rate}`;
}

type Cell = string | number | null | undefined;

export const yesNo = (value: boolean | undefined) => (value ? 'yes' : 'no');

function table(headers: string[], rows: Cell[][]): string {
  const cells = rows.map((row) => row.map((c) => (c == null ? '' : String(c)).replace(/\s+/g, ' ')));
  // Not Math.max(...column): a spread of a long listing's rows overflows the stack.
  const widths = headers.map((h, i) => cells.reduce((w, r) => Math.max(w, [...r[i]!].length), h.length));
  const line = (row: string[]) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** What a command did: `data` as JSON with --json, else `text`. */
export function show(ctx: Context, data: unknown, text: string): void {
  ctx.out(ctx.json ? JSON.stringify(data, null, 2) : text);
}

/** A list command's output: the items as JSON with --json, else a table (or `empty` when there are none). */
export function showList<T>(
  ctx: Context,
  items: T[],
  empty: string,
  headers: string[],
  row: (item: T) => Cell[],
): void {
  if (ctx.json) return ctx.out(JSON.stringify(items, null, 2));
  ctx.out(items.length ? table(headers, items.map(row)) : empty);
}

/** Reads a line from the terminal without echoing it. */
export function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      if (chunk.startsWith('\u001b')) return; // arrow keys and other escape sequences
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish();
          return resolve(value);
        }
        if (ch === '\u0003') {
          finish();
          return reject(new Interrupted());
        }
        if (ch === '\u0004') {
          if (value) continue;
          finish();
          return reject(new Failure('No password given.'));
        }
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch === '\u0015') value = '';
        else if (ch >= ' ') value += ch;
      }
    };
    // Raw mode (no echo) before the prompt: what is typed once the prompt shows is never echoed.
    stdin.setEncoding('utf8');
    stdin.setRawMode(true);
    process.stderr.write(prompt);
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** The first line of standard input (without its line ending), or undefined when there is none. */
export async function readFirstLine(): Promise<string | undefined> {
  let data = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    data += chunk as string;
    const end = data.indexOf('\n');
    if (end >= 0) return data.slice(0, end).replace(/\r$/, '');
  }
  return data ? data.replace(/\r$/, '') : undefined;
}
