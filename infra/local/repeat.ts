/**
 * What the local runtime does on a schedule that a scheduled function does on AWS (the file sweep,
 * the IMAP poll): a pass at start, then one `intervalMs` after each pass ends, so two passes never
 * overlap (as reserved concurrency 1 keeps them apart on AWS). `stop` waits for a pass under way.
 */
export interface Repeating {
  stop(): Promise<void>;
}

/** Runs `pass` now and again `intervalMs` after each pass ends; `pass` handles its own failures. */
export function repeatEvery(intervalMs: number, pass: () => Promise<void>): Repeating {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = async () => {
    await pass();
    if (!stopped) {
      timer = setTimeout(() => {
        running = run();
      }, intervalMs);
    }
  };
  running = run();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
