/**
 * The watchdog that ends DynamoDB Local's JVM when the process that started it is killed outright
 * (infra/local/engines.ts, `endWithThisProcess`). Checked on a stand-in child (`sleep`) rather than a
 * JVM: what is under test is the watchdog, and a run starts as few DynamoDB Locals as it can.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const ENGINES = resolve(import.meta.dirname, '../../infra/local/engines.ts');

/** Whether `pid` runs (a zombie, killed and not yet reaped, does not). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

it.skipIf(process.platform !== 'linux')(
  'a child under the watchdog ends when its parent is killed outright (SIGKILL)',
  { timeout: 30_000 },
  async () => {
    // The parent: starts a long child, puts it under the watchdog, prints its pid, and stays up.
    const script = [
      "import { spawn } from 'node:child_process';",
      `import { endWithThisProcess } from ${JSON.stringify(ENGINES)};`,
      "const child = spawn('sleep', ['300'], { stdio: 'ignore' });",
      'endWithThisProcess(child);',
      'console.log(child.pid);',
      'setInterval(() => undefined, 1000);',
    ].join('\n');
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    parent.stdout.on('data', (chunk) => (output += chunk));
    parent.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => /^\d+$/m.test(output), { timeout: 20_000, interval: 50 }).toBe(true);
      const child = Number(/^(\d+)$/m.exec(output)![1]);
      expect(running(child)).toBe(true);
      parent.kill('SIGKILL');
      // The watchdog looks once a second.
      await expect.poll(() => running(child), { timeout: 10_000, interval: 100 }).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  },
);
