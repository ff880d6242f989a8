/**
 * The local runtime's generated secrets (the webhook signing secret, the mail threading secret): an
 * environment variable when set, else one kept in the data directory (made on first use, owner-only),
 * or for a data directory `memory`, one for this process.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Sets `variable` from the environment, the data directory's `file`, or `make()`; returns the secret when this call
 * made it.
 */
export function ensureLocalSecret(
  dataDir: string,
  variable: string,
  file: string,
  make: () => string,
): string | undefined {
  if (process.env[variable]) return undefined;
  const path = dataDir === 'memory' ? undefined : join(dataDir, file);
  if (path && existsSync(path)) {
    process.env[variable] = readFileSync(path, 'utf8').trim();
    return undefined;
  }
  const secret = make();
  if (path) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  }
  process.env[variable] = secret;
  return secret;
}
