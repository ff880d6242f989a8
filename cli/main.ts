/**
 * `npm run helpdesk -- <command> [options]`: the operator commands, the equivalent of Django's
 * management commands (createsuperuser, changepassword, ...). `helpdesk --help` lists them.
 *
 * This file picks the command and prints help; one file per command group holds the commands
 * (users, tokens, queues, mail-settings, custom-fields, webhooks, events, stream), target.ts where they work, rules.ts
 * the API's field rules that check every value before anything is written.
 *
 * Exit status: 0 done; 1 failed (refused by the field rules, duplicate, unknown user, AWS error);
 * 2 usage error (unknown command or option, missing argument).
 */
import {
  asksForHelp,
  Failure,
  Interrupted,
  parseCommandLine,
  TARGET_OPTIONS,
  UsageError,
  type Command,
  type OptionSpec,
} from './command';
import { createCustomField, listCustomFields } from './custom-fields';
import { createQueue, listQueues, updateQueue } from './queues';
import { createEscalationExclusions, escalate, listEscalationExclusions } from './escalation';
import { ignoreSender, listIgnoredSenders, unignoreSender } from './ignored-senders';
import { listFailedMail, listSuppressions, sesEvent, unsuppress } from './mail-settings';
import { loadDomain } from './rules';
import { chooseTarget, connect, describeAwsError } from './target';
import { wrap } from './terminal';
import { createToken, listTokens, revokeToken } from './tokens';
import { createWebhook, disableWebhook, listWebhooks, pingWebhook } from './webhooks';
import { tailEvents } from './events';
import { mail } from './mail';
import { replayStream } from './stream';
import { reindex } from './search';
import { exportDjango, importDjango } from './migrate';
import { listMailProblems, retryMail } from './mail-in';
import { activateUser, createUser, deactivateUser, listUsers, setPassword } from './users';

const PROGRAM = 'helpdesk';

/** In the order the help lists them: the writes, then the lists. */
const COMMANDS: Command[] = [
  createUser,
  setPassword,
  deactivateUser,
  activateUser,
  createToken,
  listTokens,
  revokeToken,
  createQueue,
  updateQueue,
  createEscalationExclusions,
  escalate,
  unsuppress,
  ignoreSender,
  unignoreSender,
  sesEvent,
  createCustomField,
  createWebhook,
  pingWebhook,
  disableWebhook,
  replayStream,
  reindex,
  importDjango,
  exportDjango,
  retryMail,
  listUsers,
  listQueues,
  listEscalationExclusions,
  listSuppressions,
  listIgnoredSenders,
  listCustomFields,
  listWebhooks,
  tailEvents,
  listMailProblems,
  listFailedMail,
  mail,
];

// ---------------------------------------------------------------------------------------------
// Help

function optionLines(options: Record<string, OptionSpec>): string[] {
  const heads = Object.entries(options).map(
    ([name, o]) => `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`,
  );
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  return Object.values(options).map(
    (o, i) => `  ${heads[i]!.padEnd(width)}${wrap(o.help, 96 - width, ' '.repeat(width + 2))}`,
  );
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
      'Without --table or --stack-outputs (and with TABLE_NAME unset, or --data-dir given) the commands work on ' +
        'the local data directory of `npm start`. With a table they use AWS as usual (AWS_REGION/AWS_PROFILE or ' +
        'AWS_ACCESS_KEY_ID...).',
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
    options = Object.fromEntries(
      Object.entries(options).map(([n, o]) => [
        n,
        { ...o, help: o.help.replace('{DATA_TYPES}', DATA_TYPES.join(', ')) },
      ]),
    );
  }
  if (Object.keys(options).length) lines.push('Options:', ...optionLines(options), '');
  lines.push(
    'Target options:',
    ...optionLines(TARGET_OPTIONS),
    '',
    'Examples:',
    ...command.examples.map((e) => `  ${e}`),
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

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
  if (asksForHelp(rest)) {
    process.stdout.write(`${await commandHelp(command)}\n`);
    return 0;
  }
  const ctx = parseCommandLine(command, rest);
  const target = chooseTarget(ctx.options);
  await loadDomain();
  const work = await command.prepare(ctx);
  if (command.offline) {
    await work();
    return 0;
  }
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
