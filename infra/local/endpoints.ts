/**
 * What a process using the embedded engines needs to share with the others on the same machine:
 * the environment the handlers and the store read, and `<dataDir>/endpoints.json`, which says which
 * process owns a data directory (DynamoDB Local allows one process per directory) and, once its
 * engines are up, where they listen. The local server (`npm start`) and the operator CLI both use it:
 * the CLI talks to a running server's engines, or starts its own when none runs.
 */
import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface EngineEndpoints {
  dynamoEndpoint: string;
  s3Endpoint: string;
}

/** Environment defaults for the embedded engines; anything already set wins. */
export const LOCAL_ENV_DEFAULTS: Readonly<Record<string, string>> = {
  HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
  TABLE_NAME: 'helpdesk',
  BUCKET_NAME: 'helpdesk-attachments',
  HELPDESK_S3_FORCE_PATH_STYLE: 'true',
  AWS_REGION: 'us-east-1',
  // s3rver accepts only this key pair; DynamoDB Local (shared database) accepts any.
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
  AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
  // Powertools' local mode: each log record pretty-printed (indented JSON), no EMF metrics, no
  // tracing. POWERTOOLS_DEV=false gives the one-line JSON records that Lambda writes.
  POWERTOOLS_DEV: 'true',
  // The local runtime runs on this machine's Node 20; Lambda runs Node 22, where the SDK is quiet.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // Webhook receivers on this machine (a test receiver, a tunnel) are fine locally, never on AWS.
  HELPDESK_WEBHOOK_ALLOW_LOOPBACK: 'true',
  // The embedded engines can take seconds a call on a busy small machine, and nothing here has a
  // function timeout to beat: a call given up too soon could have committed (shared/aws/clients.ts).
  HELPDESK_DEPENDENCY_TIMEOUT_MS: '30000',
  // Ticket search on the embedded engine (PGlite in a worker thread); `off` leaves it out.
  HELPDESK_SEARCH: 'pglite',
};

/**
 * Points the AWS SDK at the embedded engines and sets the local defaults. The SDK reads these when
 * a client is built, so this runs before any store module is imported.
 */
export function useLocalEngines(endpoints: EngineEndpoints): void {
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoints.dynamoEndpoint;
  process.env.AWS_ENDPOINT_URL_S3 = endpoints.s3Endpoint;
  useLocalDefaults();
}

/** The local defaults for whatever the environment does not set. */
export function useLocalDefaults(): void {
  for (const [name, value] of Object.entries(LOCAL_ENV_DEFAULTS)) process.env[name] ??= value;
}

export type Owner = 'server' | 'cli';

/** The content of `endpoints.json`: endpoints are absent while the owner starts or stops. */
export interface OwnerRecord extends Partial<EngineEndpoints> {
  pid: number;
  owner: Owner;
  /** The server's base URL and table, when the owner is the local server. */
  url?: string;
  tableName?: string;
}

export const endpointsPath = (dataDir: string) => join(resolve(dataDir), 'endpoints.json');

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRaw(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parseRecord(text: string): OwnerRecord | undefined {
  try {
    const value = JSON.parse(text) as OwnerRecord;
    return typeof value?.pid === 'number' && (value.owner === 'server' || value.owner === 'cli') ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a whole file under a temporary name first, so readers never see half of it. */
function writeTemp(path: string, record: OwnerRecord): string {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  return temp;
}

/** This process's ownership of a data directory. */
export interface Claim {
  /** Tells the others where the engines listen (or, with none, that they are not usable now). */
  publish(endpoints: (EngineEndpoints & { url?: string; tableName?: string }) | undefined): void;
  /** Gives the directory up (idempotent; also done on process exit). */
  release(): void;
}

function tryClaim(path: string, owner: Owner): Claim | undefined {
  const temp = writeTemp(path, { pid: process.pid, owner });
  try {
    // A hard link fails when the name exists: an atomic "create if absent" of a complete file.
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  } finally {
    unlinkSync(temp);
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const current = parseRecord(readRaw(path) ?? '');
    if (current?.pid === process.pid) {
      try {
        unlinkSync(path);
      } catch {
        // Already gone.
      }
    }
  };
  process.once('exit', release);
  return {
    publish(endpoints) {
      if (released) return;
      renameSync(writeTemp(path, { pid: process.pid, owner, ...endpoints }), path);
    },
    release,
  };
}

/** Removes a file whose owner is gone, unless it changed since it was read. */
function removeStale(path: string, seen: string): void {
  if (readRaw(path) !== seen) return;
  try {
    unlinkSync(path);
  } catch {
    // Someone else removed it first.
  }
}

export class DataDirBusy extends Error {}

/**
 * A data directory holds DynamoDB Local's database (password hashes, subscriptions' signing
 * secrets), attachment files, the webhook secret and endpoints.json: its owner's only. The
 * directory is made 0700, or made so when an earlier version left it readable to others (which
 * covers what it already holds), and this process's umask keeps what it and the engines it starts
 * create from now on (the JVM inherits the umask; s3rver runs in this process) 0600 and 0700.
 */
export function ownerOnlyDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  process.umask(process.umask(0o077) | 0o077);
}

/**
 * Waits until this process owns `dataDir`, or until `accept` takes the live owner's record (the
 * CLI accepts a running server's endpoints). `accept` may throw to give up at once.
 */
export async function claimDataDir<T>(
  dataDir: string,
  owner: Owner,
  accept: (record: OwnerRecord) => T | undefined | Promise<T | undefined>,
  timeoutMs = 120_000,
): Promise<{ claim: Claim } | { accepted: T }> {
  ownerOnlyDataDir(dataDir);
  const path = endpointsPath(dataDir);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const claim = tryClaim(path, owner);
    if (claim) return { claim };
    const text = readRaw(path);
    if (text === undefined) continue;
    const record = parseRecord(text);
    if (!record || !isAlive(record.pid)) {
      removeStale(path, text);
      continue;
    }
    const accepted = await accept(record);
    if (accepted !== undefined) return { accepted };
    if (Date.now() > deadline) {
      const owner = record.owner === 'server' ? 'the local server' : 'the helpdesk CLI';
      throw new DataDirBusy(
        `${dataDir} is in use by process ${record.pid} (${owner}); ` +
          `if that process is not a helpdesk process, remove ${path}.`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
