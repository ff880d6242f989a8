/**
 * `npm run helpdesk -- <command> [options]`: the operator commands, the equivalent of Django's
 * management commands (createsuperuser, changepassword, ...). `helpdesk --help` lists them.
 *
 * Values are checked with the API's own field rules (shared/domain) before anything is written.
 * Passwords come from a prompt without echo, or from the first line of standard input when it is
 * not a terminal; never from the command line.
 *
 * Where it works: a deployed table (`--table`, `--stack-outputs`, or TABLE_NAME, with the usual
 * AWS credentials and region), or else the local data directory of `npm start`: through the running
 * server's engines when `<dataDir>/endpoints.json` names a live one, or on engines started for the
 * command. The environment the store reads is set before any store module is imported (the SDK
 * client is built when its module loads).
 *
 * Exit status: 0 done; 1 failed (refused by the field rules, duplicate, unknown user, AWS error);
 * 2 usage error (unknown command or option, missing argument).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ParsedBody } from '../shared/domain/body';
import type { FieldErrors } from '../shared/domain/errors';
import type { Field } from '../shared/domain/fields';
import type { CustomFieldDefinition } from '../shared/domain/custom-fields';
import type { User, UserSummary } from '../shared/domain/records';
import type { Engines } from './local/engines';
import { MIN_PASSWORD_LENGTH } from '../shared/domain/password';

/** The API's own rules, loaded only when a command runs (help and usage errors stay quick). */
async function loadDomain() {
  const [errors, fields, user, admin, customFields] = await Promise.all([
    import('../shared/domain/errors'),
    import('../shared/domain/fields'),
    import('../shared/domain/user'),
    import('../shared/domain/admin'),
    import('../shared/domain/custom-fields'),
  ]);
  return {
    ValidationError: errors.ValidationError,
    validateFields: fields.validateFields,
    DUPLICATE_USERNAME: user.DUPLICATE_USERNAME,
    userFields: user.userFields,
    customFieldView: admin.customFieldView,
    parseCustomFieldBody: admin.parseCustomFieldBody,
    parseQueueBody: admin.parseQueueBody,
    queueView: admin.queueView,
    DATA_TYPES: customFields.DATA_TYPES,
    sortDefinitions: customFields.sortDefinitions,
  };
}
let domain: Awaited<ReturnType<typeof loadDomain>>;

const PROGRAM = 'helpdesk';

/** Exit 2: the command line itself is wrong. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
  }
}
/** Exit 1: the command ran and could not do its work. */
class Failure extends Error {}

// ---------------------------------------------------------------------------------------------
// Command definitions

type OptionSpec = { type: 'string' | 'boolean'; short?: string; value?: string; help: string };

interface Context {
  args: string[];
  options: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
}

interface Command {
  name: string;
  args: string[];
  summary: string;
  description: string;
  options: Record<string, OptionSpec>;
  required: string[];
  examples: string[];
  /** Checks and reads everything (password included) before connecting; returns the work to do. */
  prepare(ctx: Context): (() => Promise<void>) | Promise<() => Promise<void>>;
}

const TARGET_OPTIONS: Record<string, OptionSpec> = {
  'data-dir': {
    type: 'string',
    value: 'DIR',
    help: 'local data directory (default: $HELPDESK_DATA_DIR, else .helpdesk-data); uses the engines of `npm start` when it runs on DIR, else starts them for this command',
  },
  table: { type: 'string', value: 'NAME', help: 'a deployed table (default: $TABLE_NAME), with the usual AWS credentials and region' },
  'stack-outputs': { type: 'string', value: 'FILE', help: 'read TableName (and the region) from a `cdk deploy --outputs-file` FILE' },
  json: { type: 'boolean', help: 'print JSON instead of text' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};

const PASSWORD_NOTE =
  `The password is asked for twice without echo when standard input is a terminal; otherwise it is the ` +
  `first line of standard input. It is never taken from the command line. At least ${MIN_PASSWORD_LENGTH} characters.`;

const COMMANDS: Command[] = [
  {
    name: 'create-user',
    args: ['username'],
    summary: 'create a user (password prompted or read from stdin)',
    description:
      'Creates an active user. --staff lets it use the API (every route needs staff); --superuser implies ' +
      '--staff (as Django\'s createsuperuser). Names are optional here, unlike POST /api/users/.\n' +
      PASSWORD_NOTE,
    options: {
      email: { type: 'string', value: 'EMAIL', help: 'e-mail address (required)' },
      'first-name': { type: 'string', value: 'NAME', help: 'first name (default: empty)' },
      'last-name': { type: 'string', value: 'NAME', help: 'last name (default: empty)' },
      staff: { type: 'boolean', help: 'staff: may use the API' },
      superuser: { type: 'boolean', help: 'superuser (and staff): may also manage queues and custom fields' },
    },
    required: ['email'],
    examples: [
      'npm run helpdesk -- create-user alice --email alice@example.com --superuser',
      "printf '%s\\n' \"$PASSWORD\" | npm run helpdesk -- create-user bot --email bot@example.com --staff",
    ],
    prepare: prepareCreateUser,
  },
  {
    name: 'set-password',
    args: ['username'],
    summary: "set a user's password (prompted or read from stdin)",
    description: `Replaces the password of an existing user (changes reach warm API functions within a minute).\n${PASSWORD_NOTE}`,
    options: {},
    required: [],
    examples: ['npm run helpdesk -- set-password alice'],
    prepare: prepareSetPassword,
  },
  {
    name: 'deactivate-user',
    args: ['username'],
    summary: 'make a user inactive (it can no longer authenticate)',
    description:
      'Marks a user inactive, as unticking "active" in Django\'s admin: its password and API tokens stop working ' +
      '(within a minute on warm API functions). Nothing is deleted; activate-user undoes it.',
    options: {},
    required: [],
    examples: ['npm run helpdesk -- deactivate-user alice'],
    prepare: (ctx) => prepareSetActive(ctx, false),
  },
  {
    name: 'activate-user',
    args: ['username'],
    summary: 'make an inactive user active again',
    description: 'Marks a user active again: its password (and API tokens) work again.',
    options: {},
    required: [],
    examples: ['npm run helpdesk -- activate-user alice'],
    prepare: (ctx) => prepareSetActive(ctx, true),
  },
  {
    name: 'create-token',
    args: ['username'],
    summary: 'create an API token for a user (the key is printed once)',
    description:
      'Creates an API token (Authorization: Token <key>, when HELPDESK_AUTHENTICATION_CLASSES lists token) and ' +
      'prints its key: the only time it is shown; only its hash is stored.',
    options: {},
    required: [],
    examples: ['npm run helpdesk -- create-token alice', 'npm run -s helpdesk -- create-token alice --json'],
    prepare: prepareCreateToken,
  },
  {
    name: 'list-tokens',
    args: [],
    summary: 'list API tokens (never their keys)',
    description: 'Lists API tokens: id, user, the first characters of the key, created.',
    options: { user: { type: 'string', value: 'USERNAME', help: "only this user's tokens" } },
    required: [],
    examples: ['npm run helpdesk -- list-tokens --user alice'],
    prepare: (ctx) => () => listTokensCommand(ctx),
  },
  {
    name: 'revoke-token',
    args: ['id'],
    summary: 'revoke an API token by id',
    description: 'Deletes an API token: its key stops working (within a minute on warm API functions).',
    options: {},
    required: [],
    examples: ['npm run helpdesk -- revoke-token 3'],
    prepare: prepareRevokeToken,
  },
  {
    name: 'create-queue',
    args: [],
    summary: 'create a queue',
    description: 'Creates a queue with the next free id. The slug must be unique.',
    options: {
      title: { type: 'string', value: 'TITLE', help: 'title, at most 100 characters (required)' },
      slug: { type: 'string', value: 'SLUG', help: 'letters, digits, _ and -, at most 50 characters, unique (required)' },
    },
    required: ['title', 'slug'],
    examples: ['npm run helpdesk -- create-queue --title "Billing" --slug billing'],
    prepare: prepareCreateQueue,
  },
  {
    name: 'create-custom-field',
    args: [],
    summary: 'create a custom ticket field',
    description:
      'Defines a custom field: tickets then carry it as custom_<name>. A list field needs --list-values; a ' +
      'decimal field needs --decimal-places (and --max-length, total digits, at least that).',
    options: {
      name: { type: 'string', value: 'NAME', help: 'letters, digits, _ and -, at most 50 characters, unique (required)' },
      label: { type: 'string', value: 'LABEL', help: 'label, at most 30 characters (required)' },
      type: { type: 'string', value: 'TYPE', help: 'data type (required): {DATA_TYPES}' },
      required: { type: 'boolean', help: 'tickets must give a value' },
      'max-length': { type: 'string', value: 'N', help: 'varchar/text: maximum characters; decimal: total digits' },
      'decimal-places': { type: 'string', value: 'N', help: 'decimal: digits after the point' },
      'list-values': { type: 'string', value: '"a,b,c"', help: 'list: the choices, comma-separated' },
      'empty-selection-list': { type: 'boolean', help: 'list: an empty value is allowed too' },
      'help-text': { type: 'string', value: 'TEXT', help: 'help text' },
      'staff-only': { type: 'boolean', help: 'shown to staff only' },
      ordering: { type: 'string', value: 'N', help: 'display order (lower first; negative as --ordering=-1)' },
    },
    required: ['name', 'label', 'type'],
    examples: [
      'npm run helpdesk -- create-custom-field --name os --label "Operating system" --type list --list-values "Linux,macOS,Windows"',
      'npm run helpdesk -- create-custom-field --name cost --label Cost --type decimal --max-length 8 --decimal-places 2',
    ],
    prepare: prepareCreateCustomField,
  },
  {
    name: 'list-users',
    args: [],
    summary: 'list users',
    description: 'Lists every user (never a password hash).',
    options: {},
    required: [],
    examples: ['npm run helpdesk -- list-users --json'],
    prepare: (ctx) => () => listUsersCommand(ctx),
  },
  {
    name: 'list-queues',
    args: [],
    summary: 'list queues',
    description: 'Lists every queue.',
    options: {},
    required: [],
    examples: ['npm run helpdesk -- list-queues'],
    prepare: (ctx) => () => listQueuesCommand(ctx),
  },
  {
    name: 'list-custom-fields',
    args: [],
    summary: 'list custom field definitions',
    description: 'Lists every custom field definition, in display order.',
    options: {},
    required: [],
    examples: ['npm run helpdesk -- list-custom-fields'],
    prepare: (ctx) => () => listCustomFieldsCommand(ctx),
  },
];

// ---------------------------------------------------------------------------------------------
// Help

function wrap(text: string, width: number, indent: string): string {
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

function optionLines(options: Record<string, OptionSpec>): string[] {
  const heads = Object.entries(options).map(
    ([name, o]) => `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`,
  );
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  return Object.values(options).map((o, i) => `  ${heads[i]!.padEnd(width)}${wrap(o.help, 96 - width, ' '.repeat(width + 2))}`);
}

function usageLine(command: Command): string {
  const parts = [`${PROGRAM} ${command.name}`, ...command.args.map((a) => `<${a}>`)];
  for (const [name, o] of Object.entries(command.options)) {
    const text = `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    parts.push(command.required.includes(name) ? text : `[${text}]`);
  }
  return `${parts.join(' ')} [--json] [target options]`;
}

function overallHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => `${c.name} ${c.args.map((a) => `<${a}>`).join(' ')}`.length)) + 2;
  return [
    `Usage: npm run ${PROGRAM} -- <command> [options]`,
    '',
    "Operator commands for the helpdesk API (the equivalent of Django's management commands).",
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${`${c.name} ${c.args.map((a) => `<${a}>`).join(' ')}`.padEnd(width)}${c.summary}`),
    '',
    'Target options (every command):',
    ...optionLines(TARGET_OPTIONS),
    '',
    wrap(
      'Without --table or --stack-outputs (and with TABLE_NAME unset, or --data-dir given) the commands work on the local ' +
        'data directory of `npm start`. With a table they use AWS as usual (AWS_REGION/AWS_PROFILE or AWS_ACCESS_KEY_ID...).',
      96,
      '',
    ),
    '',
    `Run \`npm run ${PROGRAM} -- <command> --help\` for a command's options. To pipe --json output, use`,
    `\`npm run -s ${PROGRAM} -- ...\` (-s keeps npm's banner off standard output).`,
    'Exit status: 0 done, 1 failed (refused value, duplicate, unknown user, AWS error), 2 usage error.',
  ].join('\n');
}

async function commandHelp(command: Command): Promise<string> {
  const lines = [`Usage: ${usageLine(command)}`, '', wrap(command.description, 96, ''), ''];
  let options = command.options;
  if (Object.values(options).some((o) => o.help.includes('{DATA_TYPES}'))) {
    const { DATA_TYPES } = await import('../shared/domain/custom-fields');
    options = Object.fromEntries(Object.entries(options).map(([n, o]) => [n, { ...o, help: o.help.replace('{DATA_TYPES}', DATA_TYPES.join(', ')) }]));
  }
  if (Object.keys(options).length) lines.push('Options:', ...optionLines(options), '');
  lines.push('Target options:', ...optionLines(TARGET_OPTIONS), '', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Validation with the API's rules

/** Readable lines for a ValidationError's fields, named as the command line names them. */
function describeErrors(errors: FieldErrors, names: Record<string, string>): string {
  return Object.entries(errors)
    .map(([field, messages]) => {
      const text = Array.isArray(messages) ? messages.map(String).join(' ') : typeof messages === 'string' ? messages : JSON.stringify(messages);
      return `  ${names[field] ?? field}: ${text}`;
    })
    .join('\n');
}

function validated<T>(what: string, names: Record<string, string>, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof domain.ValidationError) throw new Failure(`${what}:\n${describeErrors(error.fields, names)}`);
    throw error;
  }
}

const jsonBody = (data: Record<string, unknown>): ParsedBody => ({ kind: 'json', data, files: [] });

/** The API's password field: trimmed, no NUL, at least MIN_PASSWORD_LENGTH and at most 4096 characters. */
function checkPassword(raw: string): string {
  const { values, errors } = domain.validateFields({ password: domain.userFields.password }, { password: raw }, 'create', 'json');
  if (Object.keys(errors).length) throw new domain.ValidationError(errors);
  return values.password as string;
}

// ---------------------------------------------------------------------------------------------
// Password input

class Interrupted extends Error {}

/** Reads a line from the terminal without echoing it. */
function promptHidden(prompt: string): Promise<string> {
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
async function readFirstLine(): Promise<string | undefined> {
  let data = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    data += chunk as string;
    const end = data.indexOf('\n');
    if (end >= 0) return data.slice(0, end).replace(/\r$/, '');
  }
  return data ? data.replace(/\r$/, '') : undefined;
}

async function readPassword(): Promise<string> {
  const names = { password: 'password' };
  if (!process.stdin.isTTY) {
    const line = await readFirstLine();
    if (line === undefined) {
      throw new UsageError('No password on standard input: type it at the prompt (in a terminal) or pipe it as the first line.');
    }
    return validated('Invalid password', names, () => checkPassword(line));
  }
  for (let attempt = 1; ; attempt++) {
    const first = await promptHidden('Password: ');
    try {
      const password = validated('Invalid password', names, () => checkPassword(first));
      const again = await promptHidden('Password (again): ');
      if (again.trim() !== password) throw new Failure("The passwords didn't match.");
      return password;
    } catch (error) {
      if (!(error instanceof Failure) || attempt >= 3) throw error;
      process.stderr.write(`${error.message}\n`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Where the commands work

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
    const region = typeof ApiUrl === 'string' ? /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(ApiUrl)?.[1] : undefined;
    found.push({ stack, table: TableName, region });
  }
  const tables = new Set(found.map((f) => f.table));
  if (tables.size === 0) throw new Failure(`No TableName output in ${file} (expected the outputs of \`cdk deploy --outputs-file\`).`);
  if (tables.size > 1) {
    throw new Failure(`${file} names several tables (${found.map((f) => `${f.stack}: ${f.table}`).join(', ')}); choose one with --table.`);
  }
  return found[0]!;
}

function chooseTarget(options: Context['options']): Target {
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
      'The "memory" data directory keeps nothing between processes, so a command cannot work on it. ' +
        'Use a data directory (--data-dir or HELPDESK_DATA_DIR), or a deployed table (--table).',
    );
  }
  return { kind: 'local', dataDir: dir };
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

/** Sets the environment for the target (and starts local engines if needed); returns how to let go. */
async function connect(target: Target): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (target.kind === 'aws') {
    process.env.TABLE_NAME = target.table;
    if (target.region && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION) process.env.AWS_REGION = target.region;
    return () => Promise.resolve();
  }
  const { claimDataDir, useLocalEngines } = await import('./local/endpoints');
  let told = false;
  const started = Date.now();
  const owned = await claimDataDir(target.dataDir, 'cli', async (owner) => {
    if (owner.owner === 'server' && owner.dynamoEndpoint && owner.s3Endpoint && (await answers(owner.dynamoEndpoint))) {
      return { dynamoEndpoint: owner.dynamoEndpoint, s3Endpoint: owner.s3Endpoint, tableName: owner.tableName };
    }
    if (!told && Date.now() - started > 2000) {
      told = true;
      const who = owner.owner === 'server' ? 'the local server' : 'another helpdesk command';
      process.stderr.write(`Waiting for ${who} (process ${owner.pid}) on ${target.dataDir}...\n`);
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
  const { startEngines } = await import('./local/engines');
  // A JVM that lives for one command starts about three times faster with the quick compiler only.
  process.env.JAVA_TOOL_OPTIONS ??= '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
  starting = closing ? undefined : startEngines(target.dataDir);
  try {
    if (!starting) throw new Interrupted();
    const engines = await starting.catch((error: Error) => {
      throw new Failure(`Could not start the local engines on ${target.dataDir}: ${error.message}`);
    });
    useLocalEngines(engines);
    const [{ ensureTable }, { DynamoDBClient }] = await Promise.all([import('./local/bootstrap'), import('@aws-sdk/client-dynamodb')]);
    await ensureTable(new DynamoDBClient({}));
  } catch (error) {
    await close();
    throw error;
  }
  return close;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** An AWS SDK error as one readable line. */
function describeAwsError(error: Error & { $metadata?: unknown }): string {
  const table = process.env.TABLE_NAME;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  switch (error.name) {
    case 'ResourceNotFoundException':
      return `Table "${table}" was not found${region ? ` in ${region}` : ''}: check --table (or TABLE_NAME) and AWS_REGION.`;
    case 'CredentialsProviderError':
      return 'No AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or sign in with `aws sso login`).';
    case 'UnrecognizedClientException':
    case 'InvalidSignatureException':
    case 'ExpiredTokenException':
    case 'AccessDeniedException':
      return `AWS refused the request (${error.name}): ${error.message}`;
  }
  if (/region is missing/i.test(error.message)) return 'No AWS region: set AWS_REGION.';
  if (error.$metadata !== undefined || error.name === 'TimeoutError' || /ECONNREFUSED|ENOTFOUND/.test(error.message)) {
    const code = (error as { code?: string }).code;
    return `AWS request failed${error.name !== 'Error' ? ` (${error.name})` : ''}: ${error.message}${code && !error.message.includes(code) ? ` (${code})` : ''}`;
  }
  return error.message;
}

// ---------------------------------------------------------------------------------------------
// Output

const yesNo = (value: boolean | undefined) => (value ? 'yes' : 'no');

function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = rows.map((row) => row.map((c) => (c == null ? '' : String(c)).replace(/\s+/g, ' ')));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => [...r[i]!].length)));
  const line = (row: string[]) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** A user without anything secret. */
function userSummary(user: UserSummary | User) {
  const { id, username, first_name, last_name, email, is_active, is_staff, is_superuser } = user;
  return { id, username, first_name, last_name, email, is_active, is_staff, is_superuser };
}

function roleOf(user: { is_staff?: boolean; is_superuser?: boolean }): string {
  return user.is_superuser ? 'superuser' : user.is_staff ? 'staff' : 'not staff';
}

// ---------------------------------------------------------------------------------------------
// Commands

const USER_NAMES = { username: 'username', email: '--email', first_name: '--first-name', last_name: '--last-name', password: 'password' };

async function prepareCreateUser(ctx: Context) {
  const data: Record<string, unknown> = { username: ctx.args[0], email: ctx.options.email };
  // Names are optional here (Django's createsuperuser does not ask for them): an empty one is none.
  if (ctx.options['first-name']) data.first_name = ctx.options['first-name'];
  if (ctx.options['last-name']) data.last_name = ctx.options['last-name'];
  const optional = (field: Field): Field => ({ ...field, required: false });
  const fields = {
    first_name: optional(domain.userFields.first_name),
    last_name: optional(domain.userFields.last_name),
    username: domain.userFields.username,
    email: domain.userFields.email,
  };
  const values = validated('Invalid user', USER_NAMES, () => {
    const { values, errors } = domain.validateFields(fields, data, 'create', 'json');
    if (Object.keys(errors).length) throw new domain.ValidationError(errors);
    return values as { username: string; email: string; first_name?: string; last_name?: string };
  });
  const superuser = ctx.options.superuser === true;
  const staff = superuser || ctx.options.staff === true;
  const password = await readPassword();
  return async () => {
    const [{ createUser, DuplicateUsername }, { hashPassword }, { storedDateTime }] = await Promise.all([
      import('../shared/store/users'),
      import('../shared/domain/password'),
      import('../shared/domain/datetime'),
    ]);
    let user: User;
    try {
      user = await createUser({
        username: values.username,
        first_name: values.first_name ?? '',
        last_name: values.last_name ?? '',
        email: values.email,
        is_staff: staff,
        is_superuser: superuser,
        is_active: true,
        password_hash: await hashPassword(password),
        date_joined: storedDateTime(new Date()),
      });
    } catch (error) {
      if (error instanceof DuplicateUsername) throw new Failure(`Cannot create user "${values.username}": ${domain.DUPLICATE_USERNAME}`);
      throw error;
    }
    if (ctx.json) ctx.out(JSON.stringify(userSummary(user), null, 2));
    else ctx.out(`Created user "${user.username}" (id ${user.id}, ${roleOf(user)}).`);
  };
}

async function prepareSetPassword(ctx: Context) {
  const username = usernameArgument(ctx);
  const password = await readPassword();
  return async () => {
    const [{ findUserByUsername, saveUser }, { hashPassword }] = await Promise.all([
      import('../shared/store/users'),
      import('../shared/domain/password'),
    ]);
    const user = await findUserByUsername(username);
    if (!user) throw new Failure(`No user named "${username}".`);
    await saveUser({ ...user, password_hash: await hashPassword(password) });
    if (ctx.json) ctx.out(JSON.stringify({ username: user.username, password_changed: true }, null, 2));
    else ctx.out(`Password changed for user "${user.username}".`);
  };
}

/** The username argument, checked with the API's username rules. */
function usernameArgument(ctx: Context): string {
  return validated('Invalid user', USER_NAMES, () => {
    const { values, errors } = domain.validateFields({ username: domain.userFields.username }, { username: ctx.args[0] }, 'create', 'json');
    if (Object.keys(errors).length) throw new domain.ValidationError(errors);
    return values.username as string;
  });
}

function prepareSetActive(ctx: Context, active: boolean) {
  const username = usernameArgument(ctx);
  return async () => {
    const { findUserByUsername, saveUser } = await import('../shared/store/users');
    const user = await findUserByUsername(username);
    if (!user) throw new Failure(`No user named "${username}".`);
    if (user.is_active !== active) await saveUser({ ...user, is_active: active });
    if (ctx.json) ctx.out(JSON.stringify(userSummary({ ...user, is_active: active }), null, 2));
    else ctx.out(`User "${user.username}" is now ${active ? 'active' : 'inactive'}.`);
  };
}

function prepareCreateToken(ctx: Context) {
  const username = usernameArgument(ctx);
  return async () => {
    const [{ findUserByUsername }, { createToken }, tokens, { storedDateTime }] = await Promise.all([
      import('../shared/store/users'),
      import('../shared/store/tokens'),
      import('../shared/domain/tokens'),
      import('../shared/domain/datetime'),
    ]);
    if (!(await findUserByUsername(username))) throw new Failure(`No user named "${username}".`);
    const key = tokens.newTokenKey();
    const token = await createToken({
      user: username,
      prefix: key.slice(0, tokens.TOKEN_PREFIX_LENGTH),
      created: storedDateTime(new Date()),
      key_hash: tokens.hashTokenKey(key),
    });
    if (ctx.json) ctx.out(JSON.stringify(tokens.createdTokenView(token, key), null, 2));
    else ctx.out(`Created token ${token.id} for "${username}". Its key (shown only now):\n${key}`);
  };
}

async function listTokensCommand(ctx: Context) {
  const [{ listTokens }, { tokenView }] = await Promise.all([import('../shared/store/tokens'), import('../shared/domain/tokens')]);
  const tokens = (await listTokens(ctx.options.user as string | undefined)).map(tokenView);
  if (ctx.json) return ctx.out(JSON.stringify(tokens, null, 2));
  if (!tokens.length) return ctx.out('No tokens.');
  ctx.out(table(['ID', 'USER', 'PREFIX', 'CREATED'], tokens.map((t) => [t.id, t.user, `${t.prefix}...`, t.created])));
}

function prepareRevokeToken(ctx: Context) {
  const raw = ctx.args[0]!;
  if (!/^\d{1,15}$/.test(raw)) throw new UsageError(`The token id must be a number, not "${raw}".`);
  const id = Number(raw);
  return async () => {
    const { getToken, deleteToken } = await import('../shared/store/tokens');
    const token = await getToken(id);
    if (!token) throw new Failure(`No token with id ${id}.`);
    await deleteToken(token);
    if (ctx.json) ctx.out(JSON.stringify({ id, user: token.user, revoked: true }, null, 2));
    else ctx.out(`Revoked token ${id} of "${token.user}".`);
  };
}

function prepareCreateQueue(ctx: Context) {
  const fields = validated('Invalid queue', { title: '--title', slug: '--slug' }, () =>
    domain.parseQueueBody(jsonBody({ title: ctx.options.title, slug: ctx.options.slug }), 'create'),
  ) as { title: string; slug: string };
  return async () => {
    const { createQueue, DuplicateSlug } = await import('../shared/store/queues');
    try {
      const queue = await createQueue(fields);
      if (ctx.json) ctx.out(JSON.stringify(domain.queueView(queue), null, 2));
      else ctx.out(`Created queue ${queue.id} "${queue.title}" (slug ${queue.slug}).`);
    } catch (error) {
      if (error instanceof DuplicateSlug) throw new Failure(`Cannot create the queue: a queue with slug "${fields.slug}" already exists.`);
      throw error;
    }
  };
}

const CUSTOM_FIELD_NAMES: Record<string, string> = {
  name: '--name',
  label: '--label',
  help_text: '--help-text',
  data_type: '--type',
  max_length: '--max-length',
  decimal_places: '--decimal-places',
  empty_selection_list: '--empty-selection-list',
  list_values: '--list-values',
  required: '--required',
  staff_only: '--staff-only',
  ordering: '--ordering',
};

function prepareCreateCustomField(ctx: Context) {
  const o = ctx.options;
  const data: Record<string, unknown> = { name: o.name, label: o.label, data_type: o.type };
  if (o['help-text'] !== undefined) data.help_text = o['help-text'];
  if (o['max-length'] !== undefined) data.max_length = o['max-length'];
  if (o['decimal-places'] !== undefined) data.decimal_places = o['decimal-places'];
  if (o.ordering !== undefined) data.ordering = o.ordering;
  if (o['list-values'] !== undefined) {
    data.list_values = (o['list-values'] as string)
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  }
  for (const [option, field] of [
    ['required', 'required'],
    ['empty-selection-list', 'empty_selection_list'],
    ['staff-only', 'staff_only'],
  ] as const) {
    if (o[option]) data[field] = true;
  }
  const parsed = validated('Invalid custom field', CUSTOM_FIELD_NAMES, () => domain.parseCustomFieldBody(jsonBody(data)));
  const definition: CustomFieldDefinition = { ...parsed, key: randomUUID() };
  return async () => {
    const { saveCustomField, DuplicateFieldName } = await import('../shared/store/custom-fields');
    try {
      await saveCustomField(definition, true);
    } catch (error) {
      if (error instanceof DuplicateFieldName) {
        throw new Failure(`Cannot create the custom field: one named "${definition.name}" already exists.`);
      }
      throw error;
    }
    if (ctx.json) ctx.out(JSON.stringify(domain.customFieldView(definition), null, 2));
    else ctx.out(`Created custom field "${definition.name}" (${definition.data_type}); tickets carry it as custom_${definition.name}.`);
  };
}

async function listUsersCommand(ctx: Context) {
  const { listUsers } = await import('../shared/store/users');
  const users = (await listUsers()).map(userSummary);
  if (ctx.json) return ctx.out(JSON.stringify(users, null, 2));
  if (!users.length) return ctx.out('No users.');
  ctx.out(
    table(
      ['ID', 'USERNAME', 'EMAIL', 'FIRST NAME', 'LAST NAME', 'ACTIVE', 'STAFF', 'SUPERUSER'],
      users.map((u) => [u.id, u.username, u.email, u.first_name, u.last_name, yesNo(u.is_active), yesNo(u.is_staff), yesNo(u.is_superuser)]),
    ),
  );
}

async function listQueuesCommand(ctx: Context) {
  const { listQueues } = await import('../shared/store/queues');
  const queues = (await listQueues()).sort((a, b) => a.id - b.id).map(domain.queueView);
  if (ctx.json) return ctx.out(JSON.stringify(queues, null, 2));
  if (!queues.length) return ctx.out('No queues.');
  ctx.out(table(['ID', 'SLUG', 'TITLE'], queues.map((q) => [q.id, q.slug, q.title])));
}

function fieldDetails(def: ReturnType<typeof domain.customFieldView>): string {
  const details: string[] = [];
  if (def.max_length != null) details.push(`max_length=${def.max_length}`);
  if (def.decimal_places != null) details.push(`decimal_places=${def.decimal_places}`);
  if (def.list_values.length) details.push(`values: ${def.list_values.join(', ')}${def.empty_selection_list ? ' (or empty)' : ''}`);
  return details.join('; ');
}

async function listCustomFieldsCommand(ctx: Context) {
  const { listCustomFields } = await import('../shared/store/custom-fields');
  const defs = domain.sortDefinitions(await listCustomFields({ fresh: true })).map(domain.customFieldView);
  if (ctx.json) return ctx.out(JSON.stringify(defs, null, 2));
  if (!defs.length) return ctx.out('No custom fields.');
  ctx.out(
    table(
      ['NAME', 'LABEL', 'TYPE', 'REQUIRED', 'STAFF ONLY', 'ORDERING', 'DETAILS'],
      defs.map((d) => [d.name, d.label, d.data_type, yesNo(d.required), yesNo(d.staff_only), d.ordering, fieldDetails(d)]),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Main

const PASSWORD_OPTION = /^(?:--?(?:password|passwd|pass|pw)(?:=.*)?|-p.*)$/i;

function parseCommandLine(command: Command, argv: string[]): Context {
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((a) => PASSWORD_OPTION.test(a))) {
    throw new UsageError(
      'Passwords are never taken from the command line: type it at the prompt, or pipe it as the first line of standard input.',
      command,
    );
  }
  const specs = { ...command.options, ...TARGET_OPTIONS };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(specs).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}) }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const e = error as Error & { code?: string };
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const name = /Unknown option '([^']*)'/.exec(e.message)?.[1] ?? 'option';
      throw new UsageError(`Unknown option ${name} for ${command.name}.`, command);
    }
    throw new UsageError(e.message.split('. To specify a positional')[0]!, command);
  }
  const options = parsed.values as Context['options'];
  if (parsed.positionals.length !== command.args.length) {
    const wanted = command.args.length ? command.args.map((a) => `<${a}>`).join(' ') : 'no arguments';
    // Extra arguments are not echoed: one of them might be a password typed in the wrong place.
    throw new UsageError(
      parsed.positionals.length < command.args.length
        ? `Missing ${command.args.slice(parsed.positionals.length).map((a) => `<${a}>`).join(' ')}.`
        : `Too many arguments: ${command.name} takes ${wanted}.`,
      command,
    );
  }
  const missing = command.required.filter((name) => options[name] === undefined);
  if (missing.length) throw new UsageError(`Missing ${missing.map((m) => `--${m}`).join(', ')}.`, command);
  return { args: parsed.positionals, options, json: options.json === true, out: (text) => process.stdout.write(`${text}\n`) };
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(`${overallHelp()}\n`);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = topic === undefined ? undefined : COMMANDS.find((c) => c.name === topic);
    if (topic !== undefined && !command) throw new UsageError(`Unknown command "${topic}".`);
    process.stdout.write(`${command ? await commandHelp(command) : overallHelp()}\n`);
    return 0;
  }
  if (name.startsWith('-')) throw new UsageError('The command comes first: helpdesk <command> [options].');
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(`Unknown command "${name}". Commands: ${COMMANDS.map((c) => c.name).join(', ')}.`);
  const end = rest.indexOf('--');
  if ((end < 0 ? rest : rest.slice(0, end)).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(`${await commandHelp(command)}\n`);
    return 0;
  }
  const ctx = parseCommandLine(command, rest);
  const target = chooseTarget(ctx.options);
  domain = await loadDomain();
  const work = await command.prepare(ctx);
  const close = await connect(target);
  try {
    await work();
  } finally {
    await close();
  }
  return 0;
}

let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  const e = error as Error;
  if (e instanceof UsageError) {
    const help = `npm run ${PROGRAM} -- ${e.command ? `${e.command.name} ` : ''}--help`;
    process.stderr.write(`${PROGRAM}: ${e.message}\nRun \`${help}\` for usage.\n`);
    code = 2;
  } else if (e instanceof Interrupted) {
    code = 130;
  } else {
    process.stderr.write(`${PROGRAM}: ${e instanceof Failure ? e.message : describeAwsError(e)}\n`);
    if (process.env.HELPDESK_DEBUG && !(e instanceof Failure)) process.stderr.write(`${e.stack}\n`);
    code = 1;
  }
}
// Let piped output drain, then leave (open SDK sockets must not keep the process alive).
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
process.exit(code);
