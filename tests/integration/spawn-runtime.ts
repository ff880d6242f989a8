/**
 * Starts the local runtime exactly as a user does (`infra/local/main.ts`, what `npm start` runs)
 * in its own process, on a free port with in-memory data, and reads its URL from its output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { NODE_OPTIONS } from '../../infra/node-options';

/**
 * How often the tests' runtimes read their table's stream (the ticket counts follow it), instead of
 * `npm start`'s 50 ms. Each read is three calls (DescribeStream, GetShardIterator, GetRecords), made
 * whether or not anything was written: measured here, an idle runtime and its share of DynamoDB
 * Local spend 18% of a core on it at 50 ms, 6% at 250 ms, and a run has two or three runtimes up at
 * any time on two cores. Tests that need the counts wait for them (client.ts, countsSettled).
 */
export const STREAM_POLL_MS = '200';

/** The admin of every runtime the tests start (the integration client's default credentials). */
export const TEST_ADMIN = { username: 'admin', password: 'admin-test-password' };

/** A runtime with the API switched on and TEST_ADMIN as its staff superuser; `env` adds or overrides. */
export function spawnApiRuntime(env: Record<string, string> = {}): Promise<SpawnedRuntime> {
  return spawnRuntime({
    HELPDESK_ADMIN_USERNAME: TEST_ADMIN.username,
    HELPDESK_ADMIN_PASSWORD: TEST_ADMIN.password,
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
    ...env,
  });
}

export interface SpawnedRuntime {
  url: string;
  /** Where its SMTP server (mail in) listens. */
  smtpPort: number;
  output: () => string;
  /** Ctrl-C: a clean stop. */
  stop(): Promise<void>;
  /** SIGKILL: a crash, with no chance to clean up. */
  kill(): Promise<void>;
}

const ROOT = resolve(import.meta.dirname, '../..');

export async function spawnRuntime(env: Record<string, string> = {}): Promise<SpawnedRuntime> {
  const child: ChildProcess = spawn(process.execPath, [...NODE_OPTIONS, '--import', 'tsx', 'infra/local/main.ts'], {
    cwd: ROOT,
    // Request log lines (and `npm start`'s access lines) only where a test reads them: nobody reads
    // the others, and writes to a pipe are synchronous on Linux. The table's stream is read every
    // STREAM_POLL_MS rather than every 50 ms: see there. Mail in listens on a free port, never on
    // `npm start`'s 2525.
    env: {
      ...process.env,
      PORT: '0',
      HELPDESK_SMTP_PORT: '0',
      HELPDESK_DATA_DIR: 'memory',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      HELPDESK_LOG_FORMAT: 'json',
      HELPDESK_STREAM_POLL_MS: STREAM_POLL_MS,
      HELPDESK_SEARCH: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((done, fail) => {
    // Generous: the JVM of DynamoDB Local starts slowly on a busy machine. A runtime that does not
    // start in time is stopped rather than left running (with its DynamoDB Local).
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(new Error(`local runtime did not start in 180 s:\n${output}`));
    }, 180_000);
    child.stdout!.on('data', () => {
      // The API's line, then mail in's (printed right after it).
      const m = /listening on (http:\/\/[^/\s]+)/.exec(output);
      if (m && /SMTP listening on/.test(output)) {
        clearTimeout(timer);
        done(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`local runtime exited (${code}):\n${output}`));
    });
  });
  const end = (signal: NodeJS.Signals) =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill(signal);
    });
  const smtpPort = Number(/SMTP listening on [^:\s]+:(\d+)/.exec(output)?.[1]);
  return { url, smtpPort, output: () => output, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
