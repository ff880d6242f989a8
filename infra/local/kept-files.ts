/**
 * Small JSON files the local runtime keeps in its data directory across restarts (where AWS keeps the same state in
 * a service: the stream's positions in the event source mapping, queued mail in SQS). Written to a draft of their own
 * and renamed into place, so a crash leaves the old file or the new, never half of one; readable by the owner only,
 * as the rest of the data directory.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';

/** What `file` holds, parsed; undefined when there is no such file. Throws when it is not JSON. */
export function readKept(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text);
}

/**
 * Replaces `file` with `value` as JSON, whole. The draft's name is fixed: one process writes a data directory's kept
 * files (its claim, endpoints.ts), one write of a file at a time (`keptWriter`), and a draft a crash left behind is
 * the next write's to overwrite, rather than one more file a crash adds.
 */
export async function writeKept(file: string, value: unknown): Promise<void> {
  const draft = `${file}.draft`;
  await writeFile(draft, `${JSON.stringify(value)}\n`, { mode: 0o600 });
  await rename(draft, file);
}

/**
 * Writes of one kept file, one at a time: `request` resolves once a write that began after the call has finished, so
 * changes made before it are on disk; calls while a write waits to begin share it.
 */
export function keptWriter(write: () => Promise<void>): { request(): Promise<void> } {
  let waiting: Promise<void> | undefined;
  let last: Promise<void> = Promise.resolve();
  return {
    request() {
      if (waiting) return waiting;
      const next = last.then(() => {
        waiting = undefined;
        return write();
      });
      waiting = next;
      last = next.catch(() => undefined);
      return next;
    },
  };
}
