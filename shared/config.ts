/**
 * The one module that reads the environment (lint keeps `process.env` out of every other file under
 * functions/ and shared/). The CDK stack sets these per environment; the local runtime sets them
 * from its defaults. AWS endpoints come from the SDK's own AWS_ENDPOINT_URL_DYNAMODB and
 * AWS_ENDPOINT_URL_S3, so handler code is identical locally and on AWS.
 *
 * Each setting is read and parsed once, the first time it is used, and kept: a function's
 * environment does not change while it runs. Not at import: the local runtime and the benchmark
 * import shared modules before they fill in the environment (infra/local/runtime.ts imports the
 * webhook settings, bench/seed.ts the store, and only then does useLocalDefaults() set TABLE_NAME and
 * the rest), and tests set it before they import what reads it. A setting that fails to parse is
 * not kept: it throws again at its next use.
 */
import { loginThrottleFrom, type LoginThrottlePolicy } from './domain/login-throttle';
import { parseAuthenticationClasses } from './domain/tokens';
import { parseOidcSettings } from './domain/oidc';
import { parseCorsOrigins } from './domain/cross-origin';
import { parseMailSettings, type MailSettings } from './domain/mail';
import { parseImapUrl, type ImapMailbox } from './domain/mail-in-imap';
import { readFileSync } from 'node:fs';
import { isTimeZone } from './domain/escalation';
import { parseUrlList, parseWebhookSettings, type WebhookEvent, type WebhookSettings } from './domain/webhooks';

const env = (name: string): string | undefined => process.env[name];

function required(name: string): string {
  const value = env(name);
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
}

/** A setting read on first use and kept from then on. */
function once<T>(read: () => T): () => T {
  let kept: { value: T } | undefined;
  return () => (kept ??= { value: read() }).value;
}

/** The webhook receivers' variables (upstream's names), by event. */
const WEBHOOK_URL_SETTING: Record<WebhookEvent, string> = {
  'ticket.created': 'HELPDESK_NEW_TICKET_WEBHOOK_URLS',
  'followup.created': 'HELPDESK_FOLLOWUP_WEBHOOK_URLS',
};

/** Where ticket search runs (HELPDESK_SEARCH): nowhere, the embedded engine, or Aurora through the Data API. */
export type SearchSetting = 'off' | 'pglite' | 'aurora';

const settings = {
  search: once((): SearchSetting => {
    const value = env('HELPDESK_SEARCH') || 'off';
    if (value !== 'off' && value !== 'pglite' && value !== 'aurora')
      throw new Error(`HELPDESK_SEARCH must be off, pglite or aurora, not "${value}"`);
    if (value === 'aurora')
      for (const name of ['HELPDESK_SEARCH_CLUSTER_ARN', 'HELPDESK_SEARCH_SECRET_ARN']) required(name);
    return value;
  }),
  tableName: once(() => required('TABLE_NAME')),
  bucketName: once(() => required('BUCKET_NAME')),
  loginThrottle: once((): LoginThrottlePolicy => loginThrottleFrom(process.env)),
  authenticationClasses: once(() => parseAuthenticationClasses(env('HELPDESK_AUTHENTICATION_CLASSES'))),
  oidc: once(() => parseOidcSettings(process.env)),
  corsOrigins: once(() => parseCorsOrigins(env('HELPDESK_CORS_ORIGINS'))),
  publicUrl: once(() => env('HELPDESK_PUBLIC_URL') || undefined),
  s3ForcePathStyle: once(() => env('HELPDESK_S3_FORCE_PATH_STYLE') === 'true'),
  environment: once(() => env('HELPDESK_ENVIRONMENT') || 'local'),
  dependencyTimeoutMs: once(() => Number(env('HELPDESK_DEPENDENCY_TIMEOUT_MS')) || undefined),
  originSecretName: once(() => env('HELPDESK_ORIGIN_SECRET_NAME') || undefined),
  originSecret: once(() => env('HELPDESK_ORIGIN_SECRET') || undefined),
  aws: once(() => ({
    region: env('AWS_REGION') ?? 'us-east-1',
    accessKeyId: env('AWS_ACCESS_KEY_ID') ?? '',
    secretAccessKey: env('AWS_SECRET_ACCESS_KEY') ?? '',
    sessionToken: env('AWS_SESSION_TOKEN'),
    s3Endpoint: env('AWS_ENDPOINT_URL_S3') || undefined,
    // As the SDK would take them (aws/dynamodb.ts and aws/aws-json.ts call these services without it).
    dynamoEndpoint: env('AWS_ENDPOINT_URL_DYNAMODB') || undefined,
    sqsEndpoint: env('AWS_ENDPOINT_URL_SQS') || undefined,
    secretsManagerEndpoint: env('AWS_ENDPOINT_URL_SECRETS_MANAGER') || undefined,
    // The SDK's endpoint variants (aws/aws-request.ts refuses them: no endpoint rules in a bundle).
    useFipsEndpoint: env('AWS_USE_FIPS_ENDPOINT') === 'true',
    useDualstackEndpoint: env('AWS_USE_DUALSTACK_ENDPOINT') === 'true',
    // The SDK's User-Agent sections: Lambda's runtime, and an operator's application id.
    executionEnv: env('AWS_EXECUTION_ENV') || undefined,
    userAgentAppId: env('AWS_SDK_UA_APP_ID') || undefined,
    sesEndpoint: env('AWS_ENDPOINT_URL_SESV2') || undefined,
    rdsDataEndpoint: env('AWS_ENDPOINT_URL_RDS_DATA') || undefined,
  })),
  webhookLoopbackAllowed: once(() => env('HELPDESK_WEBHOOK_ALLOW_LOOPBACK') === 'true'),
  webhookSettings: once((): WebhookSettings => parseWebhookSettings(process.env, settings.webhookLoopbackAllowed())),
  webhookUrlCounts: once(() => ({
    'ticket.created': parseUrlList(env(WEBHOOK_URL_SETTING['ticket.created'])).length,
    'followup.created': parseUrlList(env(WEBHOOK_URL_SETTING['followup.created'])).length,
  })),
  webhookSecretArn: once(() => env('HELPDESK_WEBHOOK_SECRET_ARN') || undefined),
  webhookQueueUrl: once(() => env('HELPDESK_WEBHOOK_QUEUE_URL') || undefined),
  webhookDeadLetterUrl: once(() => env('HELPDESK_WEBHOOK_DEAD_LETTER_URL') || undefined),
  streamRetryQueues: once((): Record<string, string> => {
    const raw = env('HELPDESK_STREAM_RETRY_QUEUES');
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Object.values(parsed).some((u) => typeof u !== 'string'))
      throw new Error('HELPDESK_STREAM_RETRY_QUEUES must be a JSON object of consumer names to queue URLs');
    return parsed as Record<string, string>;
  }),
  mailBucket: once((): string => env('HELPDESK_MAIL_BUCKET') || required('BUCKET_NAME')),
  imapMailBucket: once(() => env('HELPDESK_IMAP_MAIL_BUCKET') || undefined),
  mailReleaseFunction: once(() => env('HELPDESK_MAIL_RELEASE_FUNCTION') || undefined),
  mailDomain: once(() => (env('HELPDESK_MAIL_DOMAIN') || 'localhost').toLowerCase()),
  mailTicketsPerSenderHour: once(() =>
    wholeNumber('HELPDESK_MAIL_IN_TICKETS_PER_SENDER_HOUR', MAIL_IN_TICKETS_PER_SENDER_HOUR),
  ),
  mailRepliesPerSenderHour: once(() =>
    wholeNumber('HELPDESK_MAIL_IN_REPLIES_PER_SENDER_HOUR', MAIL_IN_REPLIES_PER_SENDER_HOUR),
  ),
  mailRepliesPerTicketHour: once(() =>
    wholeNumber('HELPDESK_MAIL_IN_REPLIES_PER_TICKET_HOUR', MAIL_IN_REPLIES_PER_TICKET_HOUR),
  ),
  mailCcsPerMessage: once(() => wholeNumber('HELPDESK_MAIL_IN_CCS_PER_MESSAGE', MAIL_IN_CCS_PER_MESSAGE)),
  mailParseBudgetMs: once(() => wholeNumber('HELPDESK_MAIL_IN_PARSE_BUDGET_MS', MAIL_IN_PARSE_BUDGET_MS)),
  customFieldsCacheMs: once(() => wholeNumber('HELPDESK_CUSTOM_FIELDS_CACHE_MS', DEFINITIONS_TTL_MS)),
  mailDnsRecords: once((): Record<string, string[][]> | undefined => {
    const file = env('HELPDESK_MAIL_IN_DNS_FILE');
    return file ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string[][]>) : undefined;
  }),
  mailArcSealers: once(() =>
    (env('HELPDESK_MAIL_IN_ARC_SEALERS') ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
  ),
  mailSettings: once((): MailSettings => parseMailSettings(process.env)),
  imapMailbox: once((): ImapMailbox | undefined =>
    env('HELPDESK_IMAP_URL') ? parseImapUrl(env('HELPDESK_IMAP_URL')!) : undefined,
  ),
  imapPasswordArn: once(() => env('HELPDESK_IMAP_PASSWORD_ARN') || undefined),
  imapPassword: once(
    () =>
      env('HELPDESK_IMAP_PASSWORD') ||
      (env('HELPDESK_IMAP_PASSWORD_FILE') ? readFileSync(env('HELPDESK_IMAP_PASSWORD_FILE')!, 'utf8') : undefined),
  ),
  mailSecretArn: once(() => env('HELPDESK_MAIL_SECRET_ARN') || undefined),
  mailQueueUrl: once(() => env('HELPDESK_MAIL_QUEUE_URL') || undefined),
  mailDeadLetterUrl: once(() => env('HELPDESK_MAIL_DEAD_LETTER_URL') || undefined),
  escalationTimeZone: once((): string => {
    const zone = env('HELPDESK_ESCALATION_TIME_ZONE') || 'UTC';
    if (!isTimeZone(zone))
      throw new Error(`HELPDESK_ESCALATION_TIME_ZONE must be an IANA time zone such as Europe/Berlin, not "${zone}"`);
    return zone;
  }),
  eventsSettleMs: once((): number => {
    const raw = env('HELPDESK_EVENTS_SETTLE_MS');
    if (raw === undefined || raw === '')
      return settings.environment() === 'local' ? EVENTS_SETTLE_MS.local : EVENTS_SETTLE_MS.aws;
    if (!/^\d+$/.test(raw.trim()))
      throw new Error(`HELPDESK_EVENTS_SETTLE_MS must be a whole number of milliseconds, not "${raw}"`);
    return Number(raw);
  }),
};

/**
 * The change feed's settle horizon by default (docs/data-model.md, "The change feed"): locally the
 * stream is polled every 50 ms; on AWS Lambda polls it about four times a second, the consumer's
 * batch takes well under a second, and a stream record's time is rounded down to the second.
 */
export const EVENTS_SETTLE_MS = { local: 5_000, aws: 10_000 } as const;

/**
 * New tickets one sender may open by mail in an hour: enough for a person, and a runaway
 * autoresponder that slips past the header checks makes a handful of tickets, not thousands.
 */
export const MAIL_IN_TICKETS_PER_SENDER_HOUR = 5;
/** Replies by mail one sender (plus-address and case folded) may make in an hour, across tickets. */
export const MAIL_IN_REPLIES_PER_SENDER_HOUR = 30;
/** Replies by mail one ticket takes in an hour, from everyone. */
export const MAIL_IN_REPLIES_PER_TICKET_HOUR = 30;
/** CCs one message may add to a ticket. */
export const MAIL_IN_CCS_PER_MESSAGE = 10;
/** CPU time parsing and cleaning one message may take in its worker before it is set aside. */
export const MAIL_IN_PARSE_BUDGET_MS = 20_000;
/** How long a warm function keeps the custom field definitions (store/custom-fields.ts). */
export const DEFINITIONS_TTL_MS = 60_000;

/** A setting that is a whole number, or its default when unset. */
function wholeNumber(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new Error(`${name} must be a whole number, not "${raw}"`);
  return Number(raw);
}

/**
 * The listings table's name: the table's and `-listings` (store/schema.ts LISTINGS_SCHEMA), as the CDK stack names it
 * (infra/data-stack.ts) and the local runtime makes it, so that no function, command or test needs a setting of its
 * own for it. A function of its own, not one of `config`'s getters: the bundles that list nothing leave it out.
 */
export const listingsTableOf = (tableName: string) => `${tableName}-listings`;

export const config = {
  get tableName(): string {
    return settings.tableName();
  },
  get bucketName(): string {
    return settings.bucketName();
  },
  /**
   * The API exists only when this is exactly `True` (spec; upstream v1.0.0). Read at every request,
   * not kept: tests switch the API off and on within one process (tests/unit/observe.test.ts).
   */
  get apiActive(): boolean {
    return env('HELPDESK_ACTIVATE_API_ENDPOINT') === 'True';
  },
  /**
   * Per-queue permissions for staff who are not superusers (domain/queue-access.ts): on only when
   * HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION is `true`, as upstream's setting. Read at every request,
   * as `apiActive`: the permission matrix test turns it on and off within one runtime.
   */
  get perQueueStaffPermission(): boolean {
    return env('HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION') === 'true';
  },
  /** Failed-login throttling (domain/login-throttle.ts): HELPDESK_LOGIN_* variables, else defaults. */
  get loginThrottle(): LoginThrottlePolicy {
    return settings.loginThrottle();
  },
  /** The authentication schemes tried in order (`basic`, `token`), as DRF's DEFAULT_AUTHENTICATION_CLASSES. */
  get authenticationClasses() {
    return settings.authenticationClasses();
  },
  /** OpenID Connect bearer tokens' issuer, audience and user rules (HELPDESK_OIDC_*), when `oidc` is a class. */
  get oidc() {
    return settings.oidc();
  },
  /** Origins the CORS setting lists (HELPDESK_CORS_ORIGINS; the stack sets it from the environment's corsOrigins). */
  get corsOrigins() {
    return settings.corsOrigins();
  },
  /**
   * The API's public address behind the edge (infra/edge.ts sets it: `https://<edge domain>`), where
   * the host a function sees is CloudFront's origin; undefined without an edge.
   */
  get publicUrl(): string | undefined {
    return settings.publicUrl();
  },
  /** Path-style S3 addressing, needed by the local S3 engine (there is no standard variable for it). */
  get s3ForcePathStyle(): boolean {
    return settings.s3ForcePathStyle();
  },
  /** The environment name the stack deploys (`dev`, `staging`, `prod`); `local` otherwise. */
  get environment(): string {
    return settings.environment();
  },
  /**
   * HELPDESK_DEPENDENCY_TIMEOUT_MS: replaces the timeouts of calls to DynamoDB, S3 and SQS (the local
   * runtime sets it high: aws/clients.ts); undefined keeps the AWS ones.
   */
  get dependencyTimeoutMs(): number | undefined {
    return settings.dependencyTimeoutMs();
  },
  /**
   * The edge's origin secret (middleware/origin.ts): its name in Secrets Manager, or its value (local runtime, tests).
   */
  get originSecretName(): string | undefined {
    return settings.originSecretName();
  },
  get originSecret(): string | undefined {
    return settings.originSecret();
  },
  /**
   * The function's region and credentials (Lambda sets them; so does the local runtime), and the S3 endpoint locally.
   */
  get aws() {
    return settings.aws();
  },
  /**
   * AWS_ENDPOINT_URL_LAMBDA, as the SDK would take it (aws/lambda.ts): the local runtime's endpoint. Apart from
   * `aws`, which is read before the local runtime knows the port it listens on, and read at each use: a runtime
   * started again in the same process (tests) listens on another port.
   */
  get lambdaEndpoint(): string | undefined {
    return env('AWS_ENDPOINT_URL_LAMBDA') || undefined;
  },
  /**
   * The X-Ray trace of the invocation being served (`_X_AMZN_TRACE_ID`): read at each use, not kept,
   * as Lambda sets it anew for every invocation.
   */
  get lambdaTraceId(): string | undefined {
    return env('_X_AMZN_TRACE_ID') || undefined;
  },
  /** The Lambda function this process serves (AWS_LAMBDA_FUNCTION_NAME); undefined outside Lambda. Read at each use. */
  get lambdaFunctionName(): string | undefined {
    return env('AWS_LAMBDA_FUNCTION_NAME') || undefined;
  },
  /**
   * HELPDESK_EVENTS_SETTLE_MS: the change feed serves only events older than this, and the stream
   * consumer writes an event it is later than half of it with at the current time instead (so no
   * reader's cursor ever passes an event written after it). Defaults: EVENTS_SETTLE_MS.
   */
  get eventsSettleMs(): number {
    return settings.eventsSettleMs();
  },
  /**
   * HELPDESK_CUSTOM_FIELDS_CACHE_MS: how long a warm function keeps the custom field definitions, so how
   * soon a definition written elsewhere (another function, the CLI) shows. Default: DEFINITIONS_TTL_MS.
   */
  get customFieldsCacheMs(): number {
    return settings.customFieldsCacheMs();
  },
  mailIn: {
    /** The bucket of received raw messages (HELPDESK_MAIL_BUCKET; locally the attachments bucket, under `inbound/`). */
    get bucket(): string {
      return settings.mailBucket();
    },
    /**
     * Where a queue without an address of its own answers: `<slug>@<domain>` (HELPDESK_MAIL_DOMAIN, default
     * `localhost`).
     */
    get domain(): string {
      return settings.mailDomain();
    },
    /** The address the helpdesk sends from (HELPDESK_MAIL_FROM's address), one of its own for loop detection. */
    get fromAddress(): string | undefined {
      return settings.mailSettings().defaultFrom?.address.toLowerCase();
    },
    /** HELPDESK_MAIL_IN_TICKETS_PER_SENDER_HOUR, default MAIL_IN_TICKETS_PER_SENDER_HOUR. */
    get ticketsPerSenderHour(): number {
      return settings.mailTicketsPerSenderHour();
    },
    /** HELPDESK_MAIL_IN_REPLIES_PER_SENDER_HOUR: replies by mail from one sender in an hour. */
    get repliesPerSenderHour(): number {
      return settings.mailRepliesPerSenderHour();
    },
    /** HELPDESK_MAIL_IN_REPLIES_PER_TICKET_HOUR: replies by mail one ticket takes in an hour. */
    get repliesPerTicketHour(): number {
      return settings.mailRepliesPerTicketHour();
    },
    /** HELPDESK_MAIL_IN_CCS_PER_MESSAGE: CCs one message may add. */
    get ccsPerMessage(): number {
      return settings.mailCcsPerMessage();
    },
    /** HELPDESK_MAIL_IN_PARSE_BUDGET_MS: time one message's parsing may take in its worker. */
    get parseBudgetMs(): number {
      return settings.mailParseBudgetMs();
    },
    /** HELPDESK_MAIL_IN_ARC_SEALERS: domains whose ARC seals are trusted (forwarders the operator uses). */
    get arcSealers(): string[] {
      return settings.mailArcSealers();
    },
    /**
     * HELPDESK_MAIL_IN_DNS_FILE: DNS answers pinned for the sender checks (`{"TXT:<name>": [["..."]]}`),
     * for a machine without DNS (tests, offline development); unset: the system's resolver.
     */
    get dnsRecords(): Record<string, string[][]> | undefined {
      return settings.mailDnsRecords();
    },
    /**
     * The IMAP mailbox mail is taken from (HELPDESK_IMAP_URL), or undefined for none; throws ImapSettingsError on a bad
     * one.
     */
    get imap(): ImapMailbox | undefined {
      return settings.imapMailbox();
    },
    /** Secrets Manager's ARN of the mailbox's app password (AWS). */
    get imapPasswordArn(): string | undefined {
      return settings.imapPasswordArn();
    },
    /** The mailbox's app password locally: HELPDESK_IMAP_PASSWORD, or the file HELPDESK_IMAP_PASSWORD_FILE names. */
    get imapPassword(): string | undefined {
      return settings.imapPassword();
    },
    /**
     * The IMAP poller's bucket of received messages where SES mail in has its own too (HELPDESK_IMAP_MAIL_BUCKET: the
     * release function reads both); undefined: `bucket` holds every kept message.
     */
    get imapBucket(): string | undefined {
      return settings.imapMailBucket();
    },
    /**
     * The function that runs a released held or failed message through the ingest again
     * (HELPDESK_MAIL_RELEASE_FUNCTION: infra/mail-release.ts on AWS, the local runtime's otherwise); undefined where
     * no mail in is deployed.
     */
    get releaseFunction(): string | undefined {
      return settings.mailReleaseFunction();
    },
  },
  webhooks: {
    /** Set only by the local runtime: receivers on this machine are fine there, never on AWS. */
    get loopbackAllowed(): boolean {
      return settings.webhookLoopbackAllowed();
    },
    /** The validated settings; throws WebhookSettingsError naming what is wrong (and throws again next time). */
    get settings(): WebhookSettings {
      return settings.webhookSettings();
    },
    /** How many receivers an event has (unvalidated: a write only asks whether anyone listens). */
    receivers(event: WebhookEvent): number {
      return settings.webhookUrlCounts()[event];
    },
    /** The signing secret's ARN in Secrets Manager (on AWS). */
    get secretArn(): string | undefined {
      return settings.webhookSecretArn();
    },
    /**
     * The signing secret itself (`HELPDESK_WEBHOOK_SECRET`, locally). Read at each use, not kept: the
     * local runtime sets it once its webhooks start, after the settings were read
     * (infra/local/webhooks.ts); webhooks/settings.ts keeps the secret it read.
     */
    get secret(): string | undefined {
      return env('HELPDESK_WEBHOOK_SECRET');
    },
    /** The SQS queue of deliveries waiting for their next attempt, and its dead-letter queue (AWS only). */
    get queueUrl(): string | undefined {
      return settings.webhookQueueUrl();
    },
    get deadLetterUrl(): string | undefined {
      return settings.webhookDeadLetterUrl();
    },
  },
  stream: {
    /** Each stream consumer's retry queue on AWS, by consumer name (HELPDESK_STREAM_RETRY_QUEUES, set by the stack). */
    get retryQueues(): Record<string, string> {
      return settings.streamRetryQueues();
    },
  },
  search: {
    /** HELPDESK_SEARCH: `off` (the default: `?search=` answers 400), `pglite` (locally), `aurora` (on AWS). */
    get engine(): SearchSetting {
      return settings.search();
    },
    /** Where the embedded engine keeps its files (HELPDESK_SEARCH_DIR), or `memory`. */
    get dataDir(): string {
      return env('HELPDESK_SEARCH_DIR') || 'memory';
    },
    /** The Aurora cluster, its database user's secret and the database (aurora only). */
    get aurora() {
      return {
        clusterArn: required('HELPDESK_SEARCH_CLUSTER_ARN'),
        secretArn: required('HELPDESK_SEARCH_SECRET_ARN'),
        database: env('HELPDESK_SEARCH_DATABASE') || 'helpdesk',
      };
    },
  },
  mail: {
    /** The validated mail settings (domain/mail.ts `parseMailSettings`); throws naming what is wrong. */
    get settings(): MailSettings {
      return settings.mailSettings();
    },
    /** The threading secret's ARN in Secrets Manager (on AWS). */
    get secretArn(): string | undefined {
      return settings.mailSecretArn();
    },
    /** The threading secret itself (`HELPDESK_MAIL_SECRET`, locally): read at each use, as the webhook secret is. */
    get secret(): string | undefined {
      return env('HELPDESK_MAIL_SECRET');
    },
    /** The SQS queue of mails to send (AWS only). */
    get queueUrl(): string | undefined {
      return settings.mailQueueUrl();
    },
    /** Its dead-letter queue, where a mail that failed on every attempt is put (AWS only: it alarms). */
    get deadLetterUrl(): string | undefined {
      return settings.mailDeadLetterUrl();
    },
  },
  escalation: {
    /** HELPDESK_ESCALATION_TIME_ZONE (default UTC): whose calendar days the escalation run counts. */
    get timeZone(): string {
      return settings.escalationTimeZone();
    },
  },
};

/**
 * Reads the authentication settings, throwing a message naming what is wrong: the local runtime calls
 * it before it starts, and every API function as it loads (a Lambda init error, logged), so that
 * `HELPDESK_AUTHENTICATION_CLASSES=basic,bogus` refuses to start rather than answer 500s.
 */
export function checkAuthenticationSettings(): void {
  if (config.authenticationClasses.includes('oidc')) void config.oidc;
}
