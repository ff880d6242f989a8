/**
 * Per-environment settings, chosen with `-c env=<name>` (default `dev`). Everything that differs
 * between environments lives here; the stacks read nothing else.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { parseCorsOrigins } from './cors';
import { parseImapUrl } from '../shared/domain/mail-in-imap';
import { isTimeZone } from '../shared/domain/escalation';

export type EnvironmentName = 'dev' | 'staging' | 'prod';

export interface EnvironmentSettings {
  name: EnvironmentName;
  /**
   * Ticket search (`?search=`) on Aurora PostgreSQL Serverless v2 (infra/search.ts), scaling between
   * 0 ACU (paused when idle) and `maxCapacity`; absent: search is off (`?search=` answers 400).
   * `-c search=off` turns it off, `-c search=on` on (at 2 ACU at most) for one deploy.
   */
  search?: { maxCapacity: number };
  /**
   * Value of HELPDESK_ACTIVATE_API_ENDPOINT given to every function; anything but 'True' makes every
   * API route answer 404 (upstream's switch). The operator turns an environment's API off by setting
   * 'False' here and redeploying the API stack (`npx cdk deploy -c env=<name> Helpdesk-<name>-Api`),
   * which replaces no data.
   */
  activateApi: 'True' | 'False';
  /**
   * HELPDESK_AUTHENTICATION_CLASSES for every function: the schemes tried in order, e.g.
   * 'basic,token' to accept API tokens too (docs/security.md). Unset: 'basic' only.
   */
  authenticationClasses?: string;
  /**
   * HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION for every function: staff who are not superusers kept to
   * their queues (shared/domain/queue-access.ts, docs/security.md). Unset: off, as upstream.
   */
  perQueueStaffPermission?: boolean;
  /**
   * OpenID Connect bearer tokens, with `oidc` in authenticationClasses (docs/operations.md): an issuer
   * and audience of the operator's provider, or `cognitoUserPool` to have the stack make a Cognito user
   * pool (and app client) the issuer, into which Entra ID or Google can be federated.
   */
  oidc?: OidcEnvironmentSettings;
  /** Lambda memory (MB); CPU scales with it. */
  memorySize: number;
  /** Retention of each function's log group and of the API's access log group. */
  logRetentionDays: RetentionDays;
  /**
   * Reserved concurrency of each function that writes the table (routes whose grants write: table-access.ts),
   * or undefined for none. Set by downstream limits and cost, no longer by write conflicts (no two
   * requests' transactions share an item: docs/data-model.md). The tightest limit is the gsi1
   * partition that every ticket write lands in (about 1,000 write units a second, one entry per
   * create: ~1,000 creates a second sustained); a write takes about 50 ms, so 25 executions serve up to
   * ~500 writes a second of one operation, enough to take a burst at what DynamoDB absorbs (burst
   * capacity above the sustained rate) and to stop a runaway client well before the table's maximum
   * throughput below. It also keeps the readers' share of the account's pool. Lambda refuses a
   * reservation that leaves an account fewer than 100 unreserved executions, so it is set only where
   * the account's limit is known to allow it: prod reserves 20 × 25 = 500, which needs a limit of at
   * least 600 (the default is 1,000; new accounts may start lower: ask for a raise first).
   */
  writerConcurrency?: number;
  /**
   * The table's on-demand maximum throughput (request units a second), so that nothing (a runaway
   * client, a bug in a worker) can drive it, or its bill, past a known rate: sized at the stage's
   * burst limit times ~15 write units of a transactional write (~30 read units of a list page), with
   * headroom. Beyond it DynamoDB throttles, and the API answers 503 with Retry-After.
   */
  tableMaxThroughput: { readUnits: number; writeUnits: number };
  /** What happens to the table and the bucket when they leave the template or the stack is deleted. */
  removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection and CloudFormation termination protection of the data stack. */
  deletionProtection: boolean;
  /** `$default` stage throttling: steady requests per second and burst. */
  throttle: { rateLimit: number; burstLimit: number };
  /**
   * Webhook receivers, upstream's settings (docs/webhooks.md): comma-separated URLs, validated at
   * synth (http(s) only, no link-local, metadata or loopback address). The signing secret is made
   * by the stack in Secrets Manager, never written here.
   */
  webhooks: {
    HELPDESK_NEW_TICKET_WEBHOOK_URLS: string;
    HELPDESK_FOLLOWUP_WEBHOOK_URLS: string;
    HELPDESK_WEBHOOK_TIMEOUT: string;
    /** `true` to send private followups and staff-only fields too (shared/domain/webhooks.ts); off by default. */
    HELPDESK_WEBHOOK_INCLUDE_PRIVATE?: string;
  };
  /** Lowest level the functions log (POWERTOOLS_LOG_LEVEL); each request's line is INFO. */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Functions (handler names, e.g. `tickets/create`) bundled with the Powertools Tracer: X-Ray
   * subsegments for each DynamoDB call and S3 request inside them. None by default: the X-Ray SDK
   * adds ~170 KiB and ~45 ms of cold start to a bundle (infra/bundling.ts), and Lambda's active
   * tracing already traces every invocation. `-c traced=tickets/create,followups/create` turns it on
   * for a deploy, to look inside a slow operation for a while.
   */
  tracedHandlers: readonly string[];
  /**
   * Where the alarms (infra/monitoring.ts) send their notices by e-mail, or undefined for none (the
   * SNS topic is made either way, for other subscriptions). AWS e-mails a confirmation link first.
   * `-c alarmEmail=...` sets it at deploy time without committing an address.
   */
  alarmEmail?: string;
  /**
   * The API's own domain (an HTTP API custom domain mapped to the `$default` stage), or undefined
   * to serve it only at its execute-api URL. The certificate is an ACM certificate for that name,
   * in the stack's region, made beforehand (DNS validation). After the deploy, point the name at
   * the `CustomDomainTarget` output (CNAME, or a Route 53 alias). `-c domainName=... -c
   * certificateArn=...` set it at deploy time.
   */
  customDomain?: { domainName: string; certificateArn: string };
  /**
   * Origins whose browser scripts may call the API (CORS, infra/cors.ts): exact origins
   * (`https://app.example.com`) or `*`. Empty: CORS is off (browsers then refuse cross-origin calls).
   * `-c corsOrigins=https://a.example.com,https://b.example.com` sets it at deploy time.
   */
  corsOrigins: readonly string[];
  /**
   * The optional edge (infra/edge.ts): CloudFront with AWS WAF (AWS managed rule groups and a
   * rate-based rule) in front of the API, at `domainName`, with an ACM certificate for it in
   * us-east-1 (CloudFront's region). It needs `customDomain` (CloudFront's origin), and it turns off
   * the default execute-api endpoint: clients use `domainName` only. Undefined: no edge (the stage
   * throttle is then the only limit before the functions). `-c edgeDomainName=... -c
   * edgeCertificateArn=...` set it at deploy time, `-c edgeRateLimit=<requests per 5 minutes per
   * address>` its rate rule, `-c edgeOriginSecretVersion=<VersionId>` the origin secret's version
   * after a rotation.
   */
  edge?: EdgeSettings;
  /** Mail in through SES; undefined (the default everywhere): no receiving. */
  mailIn?: MailInSettings;
  /**
   * Mail in from an IMAP mailbox, polled every minute (infra/mail-imap.ts); undefined (the default everywhere): none.
   */
  mailImap?: MailImapSettings;
  /**
   * Mail out through Amazon SES (infra/mail.ts, docs/operations.md "Mail"), or undefined: off, and
   * no SES resource is made (the default, so a deploy needs no SES set-up). `-c mailFrom=...` (and
   * `-c mailDomain=...`, `-c mailHostedZoneId=... -c mailHostedZoneName=...`) turn it on at deploy
   * time; `-c mail=off` turns off what this file turns on.
   */
  mail?: MailEnvironment;
  /**
   * When the daily escalation runs (infra/escalation.ts): the hour (0-23) in the IANA time zone,
   * whose calendar days it counts. `-c escalationHour=7 -c escalationTimeZone=Europe/Berlin`.
   */
  escalation: EscalationSchedule;
}

export interface EscalationSchedule {
  hour: number;
  timeZone: string;
  /**
   * 1: two runs never overlap. None in dev, which reserves nothing (a small account cannot); an
   * overlap is harmless there too, as the day record makes each escalation once (store/escalation.ts).
   */
  reservedConcurrency?: 1;
}

/** Early morning UTC: before a working day in Europe and Africa, late evening in the Americas. */
export const DEFAULT_ESCALATION: EscalationSchedule = { hour: 6, timeZone: 'UTC' };

export interface MailEnvironment {
  /** The default sender (HELPDESK_MAIL_FROM): `Name <address>` or an address, at `domain` when it is given. */
  from: string;
  /**
   * The sending domain: an SES domain identity with Easy DKIM. Without it, the `from` address alone is the identity
   * (SES mails it a link to click).
   */
  domain?: string;
  /**
   * The Route 53 public hosted zone of `domain`: the stack writes the DKIM records there. Without it they are stack
   * outputs, for the operator's DNS.
   */
  hostedZone?: { id: string; name: string };
  /** HELPDESK_MAIL_ON_TICKET_UPDATES: PUT and PATCH mail status and assignment changes too. */
  onTicketUpdates?: boolean;
  /** HELPDESK_MAIL_DISABLED_KINDS: mail kinds no queue sends. */
  disabledKinds?: readonly string[];
}

/**
 * Mail in through SES (infra/mail-in.ts): off unless set. `recipients` are the addresses or domains
 * the receipt rule takes (the queues' addresses, or their domain); `domain` is where a queue without
 * an address of its own answers (`<slug>@<domain>`); `from` the helpdesk's sender (its own mail is
 * never taken in). Only in a region where SES receives mail (docs/operations.md). `-c
 * mailInRecipients=support@example.com,example.org -c mailDomain=example.org` set it at deploy time.
 */
export interface MailInSettings {
  recipients: readonly string[];
  domain: string;
  from?: string;
}

/**
 * Mail in from an IMAP mailbox (infra/mail-imap.ts; docs/email.md, "Receiving from a mailbox"): off
 * unless set. `url` is HELPDESK_IMAP_URL (host, port, user, folder, and after `?` the address the
 * mailbox receives for, whose queue takes new mail, and what is done with a processed message),
 * checked at synth by the same parser the function uses; `passwordSecretArn` the full ARN of the
 * Secrets Manager secret whose value is the mailbox's app password (made by the operator, never in
 * the repo). `-c mailImapUrl=imaps://support%40example.com@imap.gmail.com/INBOX -c
 * mailImapPasswordArn=arn:aws:secretsmanager:...` set it at deploy time; `domain` and `from` as for
 * SES (`-c mailDomain`, `-c mailFrom`).
 */
export interface MailImapSettings {
  url: string;
  passwordSecretArn: string;
  domain?: string;
  from?: string;
}

export interface EdgeSettings {
  domainName: string;
  certificateArn: string;
  /** Requests per client address in any 5 minutes beyond which WAF blocks it (AWS's minimum is 10). */
  rateLimitPer5Minutes: number;
  /**
   * The version of the origin secret CloudFront sends (`-c edgeOriginSecretVersion=<VersionId>`),
   * after a rotation (docs/operations.md): naming it changes the template, so the deploy updates
   * the distribution's header. Undefined: the current version when the distribution last changed.
   */
  originSecretVersion?: string;
}

/**
 * Requests per address per 5 minutes: well above the stage's per-second rate for one busy integration (1,000 a minute),
 * well below a flood.
 */
export const DEFAULT_EDGE_RATE_LIMIT = 5_000;

const NO_WEBHOOKS = {
  HELPDESK_NEW_TICKET_WEBHOOK_URLS: '',
  HELPDESK_FOLLOWUP_WEBHOOK_URLS: '',
  HELPDESK_WEBHOOK_TIMEOUT: '3',
};

export const environments: Record<EnvironmentName, EnvironmentSettings> = {
  dev: {
    name: 'dev',
    activateApi: 'True',
    memorySize: 512,
    logRetentionDays: RetentionDays.ONE_WEEK,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    throttle: { rateLimit: 50, burstLimit: 100 },
    tableMaxThroughput: { readUnits: 4_000, writeUnits: 2_000 },
    webhooks: NO_WEBHOOKS,
    corsOrigins: [],
    logLevel: 'DEBUG',
    tracedHandlers: [],
    escalation: DEFAULT_ESCALATION,
  },
  staging: {
    name: 'staging',
    activateApi: 'True',
    memorySize: 512,
    logRetentionDays: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: false,
    throttle: { rateLimit: 100, burstLimit: 200 },
    tableMaxThroughput: { readUnits: 8_000, writeUnits: 4_000 },
    webhooks: NO_WEBHOOKS,
    corsOrigins: [],
    logLevel: 'INFO',
    tracedHandlers: [],
    search: { maxCapacity: 2 },
    escalation: { ...DEFAULT_ESCALATION, reservedConcurrency: 1 },
  },
  prod: {
    name: 'prod',
    activateApi: 'True',
    memorySize: 512,
    logRetentionDays: RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    throttle: { rateLimit: 500, burstLimit: 1000 },
    writerConcurrency: 25,
    tableMaxThroughput: { readUnits: 40_000, writeUnits: 20_000 },
    webhooks: NO_WEBHOOKS,
    corsOrigins: [],
    logLevel: 'INFO',
    tracedHandlers: [],
    search: { maxCapacity: 8 },
    escalation: { ...DEFAULT_ESCALATION, reservedConcurrency: 1 },
  },
};

export const DEFAULT_ENVIRONMENT: EnvironmentName = 'dev';

/** A context value as text: `-c` gives strings, cdk.json may give numbers or booleans. */
const contextText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The settings for `name` (the `env` context value); throws on an unknown name. */
export function environmentSettings(name: unknown = DEFAULT_ENVIRONMENT): EnvironmentSettings {
  const key = name === undefined || name === null || name === '' ? DEFAULT_ENVIRONMENT : contextText(name);
  if (!Object.hasOwn(environments, key)) {
    throw new Error(
      `Unknown environment "${key}" (-c env=...): expected one of ${Object.keys(environments).join(', ')}`,
    );
  }
  return environments[key as EnvironmentName];
}

/**
 * The settings a deploy may give on the command line instead of in this file (an address, a
 * domain of the operator's): `npx cdk deploy -c env=prod -c alarmEmail=ops@example.com`.
 */
export function withContextOverrides(
  settings: EnvironmentSettings,
  context: (key: string) => unknown,
): EnvironmentSettings {
  const text = (key: string): string | undefined => {
    const value = context(key);
    return value === undefined || value === null || value === '' ? undefined : contextText(value);
  };
  const domainName = text('domainName') ?? settings.customDomain?.domainName;
  const certificateArn = text('certificateArn') ?? settings.customDomain?.certificateArn;
  if (Boolean(domainName) !== Boolean(certificateArn)) {
    throw new Error(
      `Environment "${settings.name}": a custom domain needs both domainName and certificateArn (-c domainName=... ` +
        `-c certificateArn=...)`,
    );
  }
  const customDomain = domainName && certificateArn ? { domainName, certificateArn } : undefined;
  return {
    ...settings,
    alarmEmail: text('alarmEmail') ?? settings.alarmEmail,
    corsOrigins:
      text('corsOrigins') !== undefined
        ? parseCorsOrigins(text('corsOrigins'))
        : parseCorsOrigins(settings.corsOrigins.join(',')),
    tracedHandlers:
      text('traced') !== undefined ? parseHandlerList(settings.name, text('traced')!) : settings.tracedHandlers,
    customDomain,
    edge: edgeSettings(settings, text, customDomain),
    mailIn: mailInSettings(settings, text),
    mailImap: mailImapSettings(settings, text),
    mail: mailSettings(settings, text),
    search: searchSettings(settings, text('search')),
    escalation: escalationSchedule(settings, text),
    ...oidcSettings(settings, text),
  };
}

/** The environment's search with `-c search=on|off` applied. */
function searchSettings(settings: EnvironmentSettings, value: string | undefined): EnvironmentSettings['search'] {
  if (value === undefined) return settings.search;
  if (value === 'off') return undefined;
  if (value === 'on') return settings.search ?? { maxCapacity: 2 };
  throw new Error(`Environment "${settings.name}": search must be on or off, not "${value}"`);
}

function escalationSchedule(
  settings: EnvironmentSettings,
  text: (key: string) => string | undefined,
): EscalationSchedule {
  const hour = text('escalationHour') ?? String(settings.escalation.hour);
  const timeZone = text('escalationTimeZone') ?? settings.escalation.timeZone;
  if (!/^\d{1,2}$/.test(hour) || Number(hour) > 23)
    throw new Error(`Environment "${settings.name}": escalationHour must be an hour from 0 to 23, not "${hour}"`);
  if (!isTimeZone(timeZone))
    throw new Error(
      `Environment "${settings.name}": escalationTimeZone must be an IANA time zone such as Europe/Berlin, ` +
        `not "${timeZone}"`,
    );
  return { ...settings.escalation, hour: Number(hour), timeZone };
}

/**
 * `-c authenticationClasses=basic,oidc` with `-c oidcIssuer=... -c oidcAudience=...` (the operator's
 * provider) or `-c cognitoUserPool=true` (a pool made by the stack); `-c oidcStaffGroup`,
 * `-c oidcCreateUsers=true`. Checked here, so that synth fails rather than the functions.
 */
function oidcSettings(
  settings: EnvironmentSettings,
  text: (key: string) => string | undefined,
): Pick<EnvironmentSettings, 'authenticationClasses' | 'oidc'> {
  const authenticationClasses = text('authenticationClasses') ?? settings.authenticationClasses;
  const given = {
    issuer: text('oidcIssuer'),
    audience: text('oidcAudience'),
    cognitoUserPool: text('cognitoUserPool') === undefined ? undefined : text('cognitoUserPool') === 'true',
    staffGroup: text('oidcStaffGroup'),
    createUsers: text('oidcCreateUsers') === undefined ? undefined : text('oidcCreateUsers') === 'true',
  };
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const oidc = Object.keys(defined).length ? { ...settings.oidc, ...defined } : settings.oidc;
  if (oidcIn({ authenticationClasses }) && !(oidc?.cognitoUserPool || (oidc?.issuer && oidc.audience))) {
    throw new Error(
      `Environment "${settings.name}": the oidc class needs ` +
        '-c oidcIssuer=... -c oidcAudience=..., or -c cognitoUserPool=true',
    );
  }
  return { authenticationClasses, ...(oidc ? { oidc } : {}) };
}

const SENDER = /^(?:[^<>\r\n]*<)?([^\s<>@]+@([a-z0-9-]+(?:\.[a-z0-9-]+)+))>?$/i;

/**
 * The environment's mail, with `-c mail=off`, `-c mailFrom`, `-c mailDomain`, `-c mailHostedZoneId`/`Name` applied and
 * checked.
 */
function mailSettings(
  settings: EnvironmentSettings,
  text: (key: string) => string | undefined,
): MailEnvironment | undefined {
  const fail = (why: string) => new Error(`Environment "${settings.name}": mail ${why}`);
  const switched = text('mail');
  if (switched !== undefined && switched !== 'off' && switched !== 'on')
    throw fail(`is -c mail=on or -c mail=off, not "${switched}"`);
  if (switched === 'off') return undefined;
  const from = text('mailFrom') ?? settings.mail?.from;
  const domain = text('mailDomain') ?? settings.mail?.domain;
  const zoneId = text('mailHostedZoneId') ?? settings.mail?.hostedZone?.id;
  const zoneName = text('mailHostedZoneName') ?? settings.mail?.hostedZone?.name;
  if (!from) {
    if (switched === 'on' || domain || zoneId || zoneName)
      throw fail('needs a sender: -c mailFrom="Support <support@example.com>"');
    return undefined;
  }
  const sender = SENDER.exec(from.trim());
  if (!sender) throw fail(`sender must be "Name <address>" or an address, not ${JSON.stringify(from)}`);
  const senderDomain = sender[2]!.toLowerCase();
  if (domain && senderDomain !== domain.toLowerCase() && !senderDomain.endsWith(`.${domain.toLowerCase()}`))
    throw fail(`sender ${sender[1]} is not at the sending domain ${domain}`);
  if (Boolean(zoneId) !== Boolean(zoneName))
    throw fail('hosted zone needs both its id and its name (-c mailHostedZoneId=... -c mailHostedZoneName=...)');
  if (zoneId && !domain) throw fail('hosted zone needs the sending domain it holds (-c mailDomain=...)');
  if (
    zoneName &&
    domain &&
    domain.toLowerCase() !== zoneName.toLowerCase() &&
    !domain.toLowerCase().endsWith(`.${zoneName.toLowerCase()}`)
  )
    throw fail(`domain ${domain} is not in the hosted zone ${zoneName}`);
  return {
    ...settings.mail,
    from: from.trim(),
    ...(domain ? { domain } : {}),
    ...(zoneId && zoneName ? { hostedZone: { id: zoneId, name: zoneName } } : {}),
  };
}

/** `-c traced=a/b,c/d`: handler names of functions/ (a typo would otherwise trace nothing, silently). */
function parseHandlerList(environment: EnvironmentName, list: string): string[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (
      !/^[a-z-]+\/[a-z-]+$/.test(name) ||
      !existsSync(fileURLToPath(new URL(`../functions/${name}.ts`, import.meta.url)))
    ) {
      throw new Error(
        `Environment "${environment}": traced names "${name}", which is no function (functions/<group>/<name>.ts, ` +
          `e.g. tickets/create)`,
      );
    }
  }
  return names;
}

function mailInSettings(
  settings: EnvironmentSettings,
  text: (key: string) => string | undefined,
): MailInSettings | undefined {
  const recipients =
    text('mailInRecipients')
      ?.split(',')
      .map((r) => r.trim().toLowerCase())
      .filter(Boolean) ?? settings.mailIn?.recipients;
  if (!recipients?.length) return undefined;
  const domain =
    text('mailDomain') ?? settings.mailIn?.domain ?? recipients.map((r) => r.split('@').pop()!).find(Boolean)!;
  const bad = recipients.find((r) => !/^([^@\s]+@)?[a-z0-9.-]+\.[a-z]{2,}$/.test(r));
  if (bad)
    throw new Error(`Environment "${settings.name}": mailInRecipients must be addresses or domains, not "${bad}"`);
  return { recipients, domain, from: text('mailFrom') ?? settings.mailIn?.from };
}

const SECRET_ARN = /^arn:aws[\w-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;

function mailImapSettings(
  settings: EnvironmentSettings,
  text: (key: string) => string | undefined,
): MailImapSettings | undefined {
  const url = text('mailImapUrl') ?? settings.mailImap?.url;
  const passwordSecretArn = text('mailImapPasswordArn') ?? settings.mailImap?.passwordSecretArn;
  if (!url && !passwordSecretArn) return undefined;
  const fail = (why: string) => new Error(`Environment "${settings.name}": the IMAP mailbox ${why}`);
  if (!url || !passwordSecretArn)
    throw fail(
      'needs both its URL and its password secret (-c mailImapUrl=imaps://... ' +
        '-c mailImapPasswordArn=arn:aws:secretsmanager:...)',
    );
  try {
    parseImapUrl(url);
  } catch (error) {
    throw fail((error as Error).message);
  }
  if (!SECRET_ARN.test(passwordSecretArn))
    throw fail(
      `password secret must be a Secrets Manager secret's full ARN (ending in ` +
        `-<6 characters>), not ${passwordSecretArn}`,
    );
  const domain = text('mailDomain') ?? settings.mailImap?.domain;
  const from = text('mailFrom') ?? settings.mailImap?.from;
  return { url, passwordSecretArn, ...(domain ? { domain } : {}), ...(from ? { from } : {}) };
}

function edgeSettings(
  settings: EnvironmentSettings,
  text: (key: string) => string | undefined,
  customDomain: EnvironmentSettings['customDomain'],
): EdgeSettings | undefined {
  const domainName = text('edgeDomainName') ?? settings.edge?.domainName;
  const certificateArn = text('edgeCertificateArn') ?? settings.edge?.certificateArn;
  const rate = text('edgeRateLimit');
  const originSecretVersion = text('edgeOriginSecretVersion') ?? settings.edge?.originSecretVersion;
  if (!domainName && !certificateArn) {
    for (const [key, value] of [
      ['edgeRateLimit', rate],
      ['edgeOriginSecretVersion', originSecretVersion],
    ] as const) {
      if (value !== undefined)
        throw new Error(
          `Environment "${settings.name}": ${key} without an edge (-c edgeDomainName=... -c edgeCertificateArn=...)`,
        );
    }
    return undefined;
  }
  const fail = (why: string) => new Error(`Environment "${settings.name}": the edge ${why}`);
  if (!domainName || !certificateArn)
    throw fail('needs both edgeDomainName and edgeCertificateArn (-c edgeDomainName=... -c edgeCertificateArn=...)');
  if (!/^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\//.test(certificateArn))
    throw fail(`certificate must be an ACM certificate in us-east-1 (CloudFront's region), not ${certificateArn}`);
  if (!customDomain) throw fail("needs the API's own domain as its origin (-c domainName=... -c certificateArn=...)");
  if (customDomain.domainName === domainName)
    throw fail(`domain (${domainName}) must differ from the API's own domain, its origin`);
  const rateLimitPer5Minutes =
    rate === undefined ? (settings.edge?.rateLimitPer5Minutes ?? DEFAULT_EDGE_RATE_LIMIT) : Number(rate);
  if (!Number.isInteger(rateLimitPer5Minutes) || rateLimitPer5Minutes < 10 || rateLimitPer5Minutes > 2_000_000_000) {
    throw fail(
      `rate limit must be a whole number of requests per 5 minutes from 10 (AWS ` +
        `WAF's minimum), not ${rate ?? rateLimitPer5Minutes}`,
    );
  }
  // Secrets Manager's version ids are 32 to 64 characters (a UUID when it makes them).
  if (originSecretVersion !== undefined && !/^[\w-]{32,64}$/.test(originSecretVersion)) {
    throw fail(
      'origin secret version must be the VersionId Secrets Manager gave the new value (32 to 64 letters, digits ' +
        `or dashes), not ${originSecretVersion}`,
    );
  }
  return { domainName, certificateArn, rateLimitPer5Minutes, ...(originSecretVersion ? { originSecretVersion } : {}) };
}

/** The OIDC part of an environment's settings (HELPDESK_OIDC_*: shared/domain/oidc.ts). */
export interface OidcEnvironmentSettings {
  /** The provider's issuer URL (`iss`); not with cognitoUserPool, which makes one. */
  issuer?: string;
  /** The audience (`aud`) tokens are issued for; not with cognitoUserPool (its app client's id). */
  audience?: string;
  /** A Cognito user pool made by the stack as the issuer, its tokens checked in Cognito mode. */
  cognitoUserPool?: boolean;
  /** Create a user at a first sign-in that links to none. */
  createUsers?: boolean;
  /** Members of this group are staff. */
  staffGroup?: string;
  /** The groups claim (default `groups`; Cognito: `cognito:groups`). */
  groupsClaim?: string;
}

/** Whether the environment's functions accept OpenID Connect bearer tokens. */
export function oidcIn(settings: Pick<EnvironmentSettings, 'authenticationClasses'>): boolean {
  return (settings.authenticationClasses ?? '').split(',').some((name) => name.trim().toLowerCase() === 'oidc');
}
