/**
 * What a command is, how its command line is read (node:util parseArgs), and the ways it ends
 * early: UsageError (exit 2), Failure (exit 1), Interrupted (exit 130).
 */
import { parseArgs } from 'node:util';

/** Exit 2: the command line itself is wrong. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
  }
}
/** Exit 1: the command ran and could not do its work. */
export class Failure extends Error {}
/** Exit 130: Ctrl-C at a password prompt or while the local engines start. */
export class Interrupted extends Error {}

export type OptionSpec = { type: 'string' | 'boolean'; short?: string; value?: string; help: string };

export interface Context {
  args: string[];
  options: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
}

export interface Command {
  name: string;
  args: string[];
  summary: string;
  description: string;
  options: Record<string, OptionSpec>;
  required: string[];
  examples: string[];
  /** Works on the data directory's files alone: nothing is connected (no engines started). */
  offline?: boolean;
  /** Checks and reads everything (password included) before connecting; returns the work to do. */
  prepare(ctx: Context): (() => Promise<void>) | Promise<() => Promise<void>>;
}

type CommandSpec = Omit<Command, 'args' | 'options' | 'required' | 'prepare'> &
  Partial<Pick<Command, 'args' | 'options' | 'required'>> &
  // A command with nothing to check before connecting gives only `run`.
  ({ prepare: Command['prepare'] } | { run(ctx: Context): Promise<void> });

/** A command, with no arguments, options or required options unless it names them. */
export function command(spec: CommandSpec): Command {
  const prepare = 'run' in spec ? (ctx: Context) => () => spec.run(ctx) : spec.prepare;
  return { args: [], options: {}, required: [], ...spec, prepare };
}

/** The options every command takes: where it works (target.ts), --json and --help. */
export const TARGET_OPTIONS: Record<string, OptionSpec> = {
  'data-dir': {
    type: 'string',
    value: 'DIR',
    help:
      'local data directory (default: $HELPDESK_DATA_DIR, else .helpdesk-data); uses the engines of `npm start` ' +
      'when it runs on DIR, else starts them for this command',
  },
  table: {
    type: 'string',
    value: 'NAME',
    help: 'a deployed table (default: $TABLE_NAME), with the usual AWS credentials and region',
  },
  'stack-outputs': {
    type: 'string',
    value: 'FILE',
    help: 'read TableName (and the region) from a `cdk deploy --outputs-file` FILE',
  },
  json: { type: 'boolean', help: 'print JSON instead of text' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};

/** The arguments before `--` (after it, everything is a positional argument). */
function beforeEnd(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return end < 0 ? argv : argv.slice(0, end);
}

/**
 * Whether a command's arguments ask for its help. Looked for before parsing, so that help shows
 * even beside an option the strict parse would refuse.
 */
export const asksForHelp = (argv: string[]) => beforeEnd(argv).some((a) => a === '--help' || a === '-h');

const PASSWORD_OPTION = /^(?:--?(?:password|passwd|pass|pw)(?:=.*)?|-p.*)$/i;

export function parseCommandLine(command: Command, argv: string[]): Context {
  // Before the parse, so that a password option gets this message, not the parse's "Unknown option".
  if (beforeEnd(argv).some((a) => PASSWORD_OPTION.test(a))) {
    throw new UsageError(
      'Passwords are never taken from the command line: type it at the prompt, or pipe it as the first line of ' +
        'standard input.',
      command,
    );
  }
  const specs = { ...command.options, ...TARGET_OPTIONS };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.entries(specs).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}) }]),
      ),
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
        ? `Missing ${command.args
            .slice(parsed.positionals.length)
            .map((a) => `<${a}>`)
            .join(' ')}.`
        : `Too many arguments: ${command.name} takes ${wanted}.`,
      command,
    );
  }
  // parseArgs has no required options.
  const missing = command.required.filter((name) => options[name] === undefined);
  if (missing.length) throw new UsageError(`Missing ${missing.map((m) => `--${m}`).join(', ')}.`, command);
  return {
    args: parsed.positionals,
    options,
    json: options.json === true,
    out: (text) => process.stdout.write(`${text}\n`),
  };
}

/** Runs a store write, turning its `Duplicate` error into a Failure that says what already exists. */
export async function unlessDuplicate<T>(
  Duplicate: abstract new (...args: never[]) => Error,
  message: string,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof Duplicate) throw new Failure(message);
    throw error;
  }
}
