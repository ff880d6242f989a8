/**
 * Where the commands work: a deployed table (`--table`, `--stack-outputs`, or TABLE_NAME, with the
 * usual AWS credentials and region), or else the local data directory of `npm start`: through the
 * running server's engines when `<dataDir>/endpoints.json` names a live one, or on engines started
 * for the command. The environment the store reads is set before any store module is imported
 * (its settings are read once). Against AWS, the region and credentials are the AWS SDK's (its
 * default chain: environment, profiles, SSO ...), resolved by an SDK client that makes no call.
 *
 * The local runtime (infra/local) is imported only in connectLocal, when a command works there.
 */
import { readFileSync } from 'node:fs';
import type { Engines } from '../infra/local/engines';
import { Failure, Interrupted, UsageError, type Context } from './command';

type Target = { kind: 'aws'; table: string; region?: string } | { kind: 'local'; dataDir: string };

function tableFromOutputs(file: string): { table: string; region?: string } {
  let outputs: unknown;
  try {
    outputs = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Failure(`Cannot read the stack outputs ${file}: ${(error as Error).message}`);
  }
  const found: { stack: string; table: string; region?: string }[] = [];
  for (const [stack, values] of Object.entries((outputs ?? {}) as Record<string, unknown>)) {
    if (!values || typeof values !== 'object') continue;
    const { TableName, ApiUrl } = values as Record<string, unknown>;
    if (typeof TableName !== 'string' || !TableName) continue;
    const region =
      typeof ApiUrl === 'string' ? /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(ApiUrl)?.[1] : undefined;
    found.push({ stack, table: TableName, region });
  }
  const tables = new Set(found.map((f) => f.table));
  if (tables.size === 0)
    throw new Failure(`No TableName output in ${file} (expected the outputs of \`cdk deploy --outputs-file\`).`);
  if (tables.size > 1) {
    const named = found.map((f) => `${f.stack}: ${f.table}`).join(', ');
    throw new Failure(`${file} names several tables (${named}); choose one with --table.`);
  }
  return found[0]!;
}

/** The target the options (and the environment) name; nothing is connected yet. */
export function chooseTarget(options: Context['options']): Target {
  const table = options.table as string | undefined;
  const outputs = options['stack-outputs'] as string | undefined;
  const dataDir = options['data-dir'] as string | undefined;
  if (table !== undefined && outputs !== undefined) throw new UsageError('Give --table or --stack-outputs, not both.');
  if (dataDir !== undefined && (table !== undefined || outputs !== undefined)) {
    throw new UsageError('--data-dir is for local data; it does not go with --table or --stack-outputs.');
  }
  if (table !== undefined) {
    if (!table.trim()) throw new UsageError('--table needs a table name.');
    return { kind: 'aws', table: table.trim() };
  }
  if (outputs !== undefined) return { kind: 'aws', ...tableFromOutputs(outputs) };
  if (dataDir === undefined && process.env.TABLE_NAME) return { kind: 'aws', table: process.env.TABLE_NAME };
  const dir = dataDir ?? process.env.HELPDESK_DATA_DIR ?? '.helpdesk-data';
  if (!dir.trim()) throw new UsageError('--data-dir needs a directory.');
  if (dir === 'memory') {
    throw new UsageError(
      'The "memory" data directory keeps nothing between processes, so a command cannot work on it. Use a data ' +
        'directory (--data-dir or HELPDESK_DATA_DIR), or a deployed table (--table).',
    );
  }
  return { kind: 'local', dataDir: dir };
}

/** Sets the environment for the target (and starts local engines if needed); returns how to let go. */
export async function connect(target: Target): Promise<() => Promise<void>> {
  // The test suite's cost of new password hashes, where its environment asks (its runtimes hash at it too).
  (await import('../shared/domain/password')).usePasswordCostOf(process.env);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (target.kind === 'local') return connectLocal(target.dataDir);
  process.env.TABLE_NAME = target.table;
  if (target.region && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION)
    process.env.AWS_REGION = target.region;
  // The store signs its own calls (shared/aws/dynamodb.ts): it takes the SDK's resolution of both.
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const sdk = new DynamoDBClient({}).config;
  try {
    process.env.AWS_REGION = await sdk.region();
  } catch (error) {
    throw new Failure(`No AWS region: set AWS_REGION or a profile's region (${(error as Error).message}).`);
  }
  (await import('../shared/aws/sigv4')).useCredentials(sdk.credentials);
  return () => Promise.resolve();
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

async function connectLocal(dataDir: string): Promise<() => Promise<void>> {
  const { claimDataDir, useLocalEngines } = await import('../infra/local/endpoints');
  let told = false;
  const started = Date.now();
  const owned = await claimDataDir(dataDir, 'cli', async (owner) => {
    if (owner.owner === 'server' && owner.dynamoEndpoint && owner.s3Endpoint && (await answers(owner.dynamoEndpoint))) {
      return { dynamoEndpoint: owner.dynamoEndpoint, s3Endpoint: owner.s3Endpoint, tableName: owner.tableName };
    }
    if (!told && Date.now() - started > 2000) {
      told = true;
      const who = owner.owner === 'server' ? 'the local server' : 'another helpdesk command';
      process.stderr.write(`Waiting for ${who} (process ${owner.pid}) on ${dataDir}...\n`);
    }
    return undefined;
  });
  if ('accepted' in owned) {
    // The server's table, whatever this shell's TABLE_NAME says.
    if (owned.accepted.tableName) process.env.TABLE_NAME = owned.accepted.tableName;
    useLocalEngines(owned.accepted);
    return () => Promise.resolve();
  }
  // No server runs on this directory: this command starts the engines, and stops them when done
  // (on Ctrl-C too, even while they start).
  const { claim } = owned;
  let starting: Promise<Engines> | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      await (await starting?.catch(() => undefined))?.stop();
      claim.release();
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    void close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  const { startEngines } = await import('../infra/local/engines');
  // A JVM that lives for one command starts about three times faster with the quick compiler only.
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  starting = closing ? undefined : startEngines(dataDir);
  try {
    if (!starting) throw new Interrupted();
    const engines = await starting.catch((error: Error) => {
      throw new Failure(`Could not start the local engines on ${dataDir}: ${error.message}`);
    });
    useLocalEngines(engines);
    const [{ ensureTable }, { DynamoDBClient }] = await Promise.all([
      import('../infra/local/bootstrap'),
      import('@aws-sdk/client-dynamodb'),
    ]);
    await ensureTable(new DynamoDBClient({}));
    // The files a command writes (import-django's attachments) need the bucket the server would make.
    const { S3Client } = await import('@aws-sdk/client-s3');
    const { ensureBucket } = await import('../infra/local/bootstrap');
    const { config } = await import('../shared/config');
    await ensureBucket(new S3Client({ forcePathStyle: config.s3ForcePathStyle }));
  } catch (error) {
    await close();
    throw error;
  }
  return close;
}

/** The process of the local server running on `dataDir`, if one is. */
export async function localServerOn(dataDir: string): Promise<number | undefined> {
  const { endpointsPath, isAlive } = await import('../infra/local/endpoints');
  let owner: { owner?: string; pid?: number } | undefined;
  try {
    owner = JSON.parse(readFileSync(endpointsPath(dataDir), 'utf8')) as typeof owner;
  } catch {
    return undefined;
  }
  return owner?.owner === 'server' && typeof owner.pid === 'number' && isAlive(owner.pid) ? owner.pid : undefined;
}

/** An AWS SDK error as one readable line. */
export function describeAwsError(error: Error & { $metadata?: unknown }): string {
  const table = process.env.TABLE_NAME;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  switch (error.name) {
    case 'ResourceNotFoundException':
      return (
        `Table "${table}" was not found${region ? ` in ${region}` : ''}: check --table (or TABLE_NAME) and ` +
        `AWS_REGION.`
      );
    case 'CredentialsProviderError':
      return (
        'No AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or sign in ' +
        'with `aws sso login`).'
      );
    case 'UnrecognizedClientException':
    case 'InvalidSignatureException':
    case 'ExpiredTokenException':
    case 'AccessDeniedException':
      return `AWS refused the request (${error.name}): ${error.message}`;
  }
  if (/region is missing/i.test(error.message)) return 'No AWS region: set AWS_REGION.';
  if (error.$metadata !== undefined || error.name === 'TimeoutError' || /ECONNREFUSED|ENOTFOUND/.test(error.message)) {
    const code = (error as { code?: string }).code;
    const name = error.name !== 'Error' ? ` (${error.name})` : '';
    const codeNote = code && !error.message.includes(code) ? ` (${code})` : '';
    return `AWS request failed${name}: ${error.message}${codeNote}`;
  }
  return error.message;
}
