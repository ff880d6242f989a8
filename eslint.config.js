/**
 * Lint: typescript-eslint's type-checked recommended rules, and the layers as import boundaries.
 *
 * The layers (what runs in Lambda), each importing only those below it:
 *
 *   functions/<resource>/   handlers: parse → call the store or a service → map to a response
 *   shared/middleware/      the chain every handler shares (auth, errors, bodies, idempotency)
 *   shared/webhooks/        the webhook service (dispatch, delivery, its settings and queue)
 *   shared/mail/            the mail service (who gets what, templates, composing, sending)
 *   shared/mail-in/         the mail ingest (parse, classify, route, apply), what every way in runs
 *   shared/docs/            the reference page's assets
 *   shared/consumer/        the table stream's consumer: the derived state it writes (counts,
 *                           listings, page snapshots, the change feed), repairs, backfills. Off
 *                           the request path: no route's handler, middleware or route table
 *                           imports it (they read what it writes through shared/store/)
 *   shared/store/           the named access patterns over the table and the bucket; keys.ts spells every key
 *   shared/aws/             the AWS client layer: the only code that builds clients, signs calls
 *                           and speaks HTTP to AWS (DynamoDB, S3, SQS, SES, Secrets Manager)
 *   shared/observability.ts logger and metrics
 *   shared/config.ts        the one module that reads the environment
 *   shared/api/             the route table (one record per route: grants, permission, docs) and
 *                           the OpenAPI document made from it; read by the CDK stack and the local
 *                           runtime too. It names the domain's field sets and shapes, and of the
 *                           store reads keys.ts alone (the partitions its grants name)
 *   shared/migrate/         django-helpdesk's dumpdata to records and back (import-django, export-django): pure
 *   shared/domain/          pure rules and shapes: no AWS, no I/O, no environment
 *
 * Nothing under functions/ or shared/ imports infra/, bench/ or tests/ (they import it). A handler
 * may import a helper of its own resource folder (tickets/edit.ts), never another resource's. Of
 * functions/, only those the table's stream invokes (STREAM_FUNCTIONS) import shared/consumer/.
 *
 * The boundaries are core `no-restricted-imports` patterns on the import specifier. Specifiers are
 * relative, so the patterns assume the layout's depths: files sit directly in shared/, in
 * shared/<layer>/ and in functions/<resource>/.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

/** The shared/ layers and modules a file may be kept from. */
const SHARED = [
  'api',
  'aws',
  'docs',
  'domain',
  'middleware',
  'store',
  'consumer',
  'webhooks',
  'mail',
  'mail-in',
  'migrate',
  'config',
  'observability',
];
/** The functions of the table's stream: its one reader and its consumers' retry handler. */
const STREAM_FUNCTIONS = ['functions/stream/**/*.ts'];
/** The project's folders that Lambda code never imports. */
const OUTSIDE = ['infra', 'bench', 'tests', 'functions'];

/**
 * Patterns for `layers` of shared/, as spelled from a file at `depth` (1: shared/x.ts, 2: shared/<layer>/x.ts or
 * functions/<r>/x.ts).
 */
function sharedPatterns(layers, depth) {
  const prefixes = depth === 1 ? ['./'] : ['../', '../../shared/'];
  return layers.flatMap((layer) => prefixes.map((prefix) => `${prefix}${layer}`));
}

/** One `no-restricted-imports` setting (ESLint does not merge a rule's options across config blocks). */
function boundaries({ files, ignores, depth, forbidden, outside = OUTSIDE, extraGroups = [], packages = [], message }) {
  const groups = [
    {
      group: sharedPatterns(forbidden, depth),
      message,
    },
    {
      group: outside.map((folder) => `**/${folder}`),
      message: 'Lambda code never imports infra/, bench/, tests/ or functions/ (they import it).',
    },
    ...extraGroups,
    ...packages,
  ].filter((g) => g.group.length > 0);
  return {
    files,
    ...(ignores ? { ignores } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns: groups }] },
  };
}

/** AWS SDK clients live in shared/store (clients.ts, sqs.ts): elsewhere only their types. */
const SDK_CLIENTS = {
  group: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-sqs'],
  allowTypeImports: true,
  message: 'AWS clients are built once, in shared/aws/clients.ts and shared/aws/sqs.ts.',
};

/**
 * The wire to AWS: sockets, signing and retry policies are shared/aws/'s alone. (The webhook sender
 * speaks HTTP to subscribers, not to AWS: its block leaves node:http out of this group.)
 */
const AWS_WIRE = {
  group: ['node:http', 'node:https', '@smithy/*', 'aws4fetch'],
  allowTypeImports: true,
  message:
    'Only shared/aws/ speaks to AWS over the wire: use its clients (shared/aws/clients.ts, s3.ts, sqs.ts, ses.ts).',
};
const SMITHY = { ...AWS_WIRE, group: ['@smithy/*', 'aws4fetch'] };

/** What makes code impure: the domain stays free of AWS, Lambda and Middy. */
const IMPURE = {
  group: ['@aws-sdk/*', '@aws-lambda-powertools/*', '@middy/*', 'aws4fetch', 'aws-lambda', 'busboy'],
  message: 'The domain is pure: no AWS, Lambda or Middy imports (they belong to shared/store or shared/middleware).',
};

const ALL_SHARED_BUT = (...allowed) => SHARED.filter((layer) => !allowed.includes(layer));

export default defineConfig(
  // examples/typed-client/ compiles against types generated from a running API's document
  // (scripts/typed-clients.ts, with its own tsconfig.json and --strict), which a checkout lacks.
  { ignores: ['node_modules/', 'cdk.out/', '.helpdesk-data/', 'coverage/', 'examples/typed-client/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks what is left unused on purpose (a rest sibling that strips keys, an ignored parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A `let` that a closure reads before its one assignment (a signal handler set up first) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Mail text is a stranger's: no regular expression may take super-linear time on it (issue 32).
    // Explicit, since no-super-linear-move is not in the plugin's recommended set.
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
  {
    // Prettier's width holds for every line it cannot break too (issue 31): long strings, templates, regular
    // expressions and comments are split by hand. Exempt: a line with a URL, and a module specifier (one string)
    // that alone passes the width (infra/bundled/: paths into node_modules).
    rules: {
      'max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignorePattern: String.raw`^\s*(?:export|import|\}).* from '[^']+';$` },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    // Test bodies are `Json` (tests/integration/client.ts: `any` on purpose, so assertions read any
    // field of a response); the rules that track `any` through code would flag every assertion.
    files: ['tests/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },

  // The layers.
  ...[
    { files: ['functions/**/*.ts'], ignores: STREAM_FUNCTIONS, forbidden: ['consumer'] },
    { files: STREAM_FUNCTIONS, forbidden: [] },
  ].map(({ files, ignores, forbidden }) =>
    boundaries({
      files,
      ignores,
      depth: 2,
      forbidden,
      message:
        'The request path never imports the stream consumer (shared/consumer/): ' +
        'it reads what the consumer writes ' +
        'through shared/store/.',
      extraGroups: [
        // Another resource's folder (`../tickets/edit`): shared code goes to shared/.
        {
          group: ['../*', '!../..'],
          message: "A handler imports its own resource's helpers only; what two resources share belongs in shared/.",
        },
      ],
      packages: [SDK_CLIENTS, AWS_WIRE],
    }),
  ),
  boundaries({
    files: ['shared/middleware/**/*.ts'],
    depth: 2,
    forbidden: ['webhooks', 'mail', 'docs', 'consumer'],
    message:
      'Middleware sits above the store and the domain, beside (not above) webhooks, ' +
      'mail, docs and the stream consumer.',
    packages: [SDK_CLIENTS, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/webhooks/**/*.ts'],
    depth: 2,
    forbidden: ['middleware', 'api', 'docs', 'mail', 'consumer'],
    message:
      'The webhook service uses the store and the domain, never the HTTP middleware, ' +
      'the route table or the stream ' +
      'consumer.',
    packages: [SDK_CLIENTS, SMITHY],
  }),
  boundaries({
    files: ['shared/mail-in/**/*.ts'],
    depth: 2,
    forbidden: ['api', 'docs', 'consumer'],
    message:
      'The mail ingest writes through the store as a handler does (the stale-write ' +
      'retry of middleware included), ' +
      'never through the route ' +
      'table.',
    packages: [SDK_CLIENTS, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/mail/**/*.ts'],
    depth: 2,
    forbidden: ['middleware', 'api', 'docs', 'webhooks'],
    message:
      'The mail service uses the store and the domain, never the HTTP middleware, ' +
      'the route table or the webhook ' +
      'service.',
    packages: [SDK_CLIENTS, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/docs/**/*.ts'],
    depth: 2,
    forbidden: ALL_SHARED_BUT('domain'),
    message: 'The docs page reads the domain only (the route table names its assets, not the other way round).',
    packages: [SDK_CLIENTS, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/consumer/**/*.ts'],
    depth: 2,
    forbidden: ['middleware', 'webhooks', 'mail', 'mail-in', 'docs', 'api'],
    message: 'The stream consumer uses the AWS layer, the store, the domain, config and observability only.',
    packages: [SDK_CLIENTS, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/store/**/*.ts'],
    depth: 2,
    forbidden: ['middleware', 'webhooks', 'mail', 'mail-in', 'docs', 'api', 'consumer'],
    message:
      'The store sits below middleware, webhooks, mail, the stream consumer and ' +
      'the route table: it uses the AWS ' +
      'layer, config, observability ' +
      'and the domain only.',
    packages: [AWS_WIRE],
  }),
  boundaries({
    files: ['shared/aws/**/*.ts'],
    depth: 2,
    forbidden: ALL_SHARED_BUT('aws', 'config', 'observability'),
    message: 'The AWS client layer knows nothing of its callers: it uses config and observability only.',
  }),
  boundaries({
    files: ['shared/api/**/*.ts'],
    depth: 2,
    forbidden: ALL_SHARED_BUT('api', 'domain', 'docs', 'store'),
    extraGroups: [
      {
        group: ['../store/*', '!../store/keys'],
        message: 'The route table is declarative: of the store it reads keys.ts (the partitions its grants name) only.',
      },
      {
        group: ['../docs/*', '!../docs/assets'],
        message: 'Of shared/docs the route table names the files the docs route serves (assets.ts) only.',
      },
    ],
    message: "The route table is declarative: it names the domain's field sets and shapes, nothing that does I/O.",
    packages: [SDK_CLIENTS, IMPURE, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/migrate/**/*.ts'],
    depth: 2,
    forbidden: ALL_SHARED_BUT('domain', 'migrate'),
    message: 'The django-helpdesk mapping is pure: records in and out, the domain only (the CLI and the store do I/O).',
    packages: [IMPURE, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/domain/**/*.ts'],
    depth: 2,
    forbidden: ALL_SHARED_BUT('domain'),
    message:
      'The domain is pure: no store, middleware, webhooks, config, observability ' +
      'or route table (they call it, ' +
      'with values).',
    packages: [IMPURE, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/config.ts'],
    depth: 1,
    forbidden: ALL_SHARED_BUT('domain'),
    message: 'Config reads the environment and parses it with the domain: it imports nothing else.',
    packages: [IMPURE, AWS_WIRE],
  }),
  boundaries({
    files: ['shared/observability.ts'],
    depth: 1,
    forbidden: ALL_SHARED_BUT('config'),
    message: 'Observability is configured by config.ts and imports nothing else of shared/.',
    packages: [SDK_CLIENTS, AWS_WIRE],
  }),

  {
    // One module reads the environment (a Lambda's never changes): everything else imports config.ts.
    files: ['functions/**/*.ts', 'shared/**/*.ts'],
    ignores: ['shared/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings from shared/config.ts.' },
      ],
    },
  },
);
