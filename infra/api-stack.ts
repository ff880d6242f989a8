/**
 * The stateless stack: the HTTP API and one function per entry of the route table (plus the
 * fallback), each granted exactly the table and file access its route declares.
 *
 * The route functions (each with its role, policy and invoke permissions) are made in nested stacks,
 * one per group of resources (FUNCTION_GROUPS): a stack holds at most 500 resources, and one
 * operation takes about eight, so a single stack would stop deploying a few features from now. The
 * routes, their integrations and the functions' log groups stay in this stack, where they always
 * were: regrouping replaces functions (stateless) but never a route (no moment without it) or a log.
 *
 * cdk-nag (AwsSolutions, see infra/nag.ts) findings that are accepted rather than fixed are
 * acknowledged next to the construct they concern, each with its reason.
 */
import {
  ArnFormat,
  CfnOutput,
  Duration,
  NestedStack,
  RemovalPolicy,
  Stack,
  Validations,
  type StackProps,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  CorsHttpMethod,
  DomainName,
  HttpApi,
  HttpIntegrationType,
  HttpMethod,
  HttpRouteIntegration,
  LogGroupLogDestination,
  PayloadFormatVersion,
  SecurityPolicy,
  type HttpRouteIntegrationConfig,
  type HttpStage,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { oidcIn, type EnvironmentSettings } from './environments';
import { grantTable, helpdeskFunction, type HelpdeskTables } from './lambda';
import { nagImportedArn } from './nag';
import { Webhooks } from './webhooks';
import { Identity } from './identity';
import { Mail } from './mail';
import { FileSweeper } from './file-sweeper';
import { Escalation } from './escalation';
import { MailIn } from './mail-in';
import { MailRelease } from './mail-release';
import { MailImap } from './mail-imap';
import { StreamConsumer } from './stream-consumer';
import type { SearchCluster } from './search';
import { ATTACHMENT_PREFIX, LARGE_ANSWER_PREFIX } from '../shared/store/keys';
import { grantsOf, writesTable } from '../shared/api/table-access';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS, corsAllowMethods } from './cors';
import { Monitoring } from './monitoring';
import { EDGE_REGION, originSecretName } from './edge';
import {
  FALLBACK_PATHS,
  answersCanBeLarge,
  fallbackRoute,
  routes,
  type FileAccess,
  type Route,
} from '../shared/api/routes';

const S3_ACTIONS: Record<FileAccess, string> = {
  read: 's3:GetObject',
  write: 's3:PutObject',
  delete: 's3:DeleteObject',
};

/**
 * The nested stack of each handler folder's functions. A new folder must be given a group here (the
 * synth fails otherwise); each group stays well under the limit (tests/infra/stack.test.ts).
 */
export const FUNCTION_GROUPS: Readonly<Record<string, string>> = {
  tickets: 'Tickets',
  'user-tickets': 'Tickets',
  followups: 'Followups',
  reports: 'Followups',
  attachments: 'Followups',
  users: 'Admin',
  tokens: 'Admin',
  queues: 'Admin',
  'custom-fields': 'Admin',
  'webhook-deliveries': 'Admin',
  'webhook-subscriptions': 'Admin',
  events: 'Admin',
  'escalation-exclusions': 'Admin',
  api: 'Reference',
  'ticket-cc': 'Mail',
  'mail-suppressions': 'Mail',
  'mail-problems': 'Mail',
  'mail-templates': 'Mail',
  'ignored-senders': 'Mail',
  'ticket-emails': 'Mail',
};

/**
 * A Lambda proxy integration (payload 2.0) that, unlike HttpLambdaIntegration, adds no invoke
 * permission of its own: HttpLambdaIntegration adds one per route, here beside the routes (two alike
 * for each GET and its HEAD); the stack adds one per path instead, beside the function (allowInvoke).
 */
class LambdaProxyIntegration extends HttpRouteIntegration {
  constructor(
    id: string,
    private readonly fn: NodejsFunction,
  ) {
    super(id);
  }

  bind(): HttpRouteIntegrationConfig {
    return {
      type: HttpIntegrationType.AWS_PROXY,
      uri: this.fn.functionArn,
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    };
  }
}

/** Construct id from the handler path: `tickets/list` -> `TicketsList`, `api/fallback` -> `ApiFallback`. */
export function functionId(handler: string): string {
  return handler
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/**
 * One line of JSON per request in the stage's access log. Every value is quoted: API Gateway writes
 * `-` for a missing one (integrationError on success), which would not be valid JSON unquoted.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  latency: '$context.responseLatency',
  integrationError: '$context.integrationErrorMessage',
} as const;

export interface ApiStackProps extends StackProps {
  settings: EnvironmentSettings;
  table: ITable;
  /** The listings table (the filtered lists' and the stream consumer's: shared/store/schema.ts LISTINGS_SCHEMA). */
  listings: ITable;
  bucket: IBucket;
  /** The search engine, where the environment has search on (infra/search.ts). */
  search?: SearchCluster;
}

export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The function of each handler path (`tickets/list` ...). */
  readonly functions = new Map<string, NodejsFunction>();
  /** Dashboard, alarms and the alarm topic: `monitoring.addAlarm(alarm)` notifies the topic too. */
  readonly monitoring: Monitoring;
  /** OpenID Connect settings and the optional Cognito user pool (infra/identity.ts). */
  readonly identity: Identity;
  /** The nested stacks of the route functions, by group (FUNCTION_GROUPS). */
  readonly groups = new Map<string, NestedStack>();
  private readonly integrations = new Map<NodejsFunction, LambdaProxyIntegration>();

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    const { settings, table, listings, bucket, search, ...stackProps } = props;
    super(scope, id, stackProps);

    this.api = new HttpApi(this, 'HttpApi', {
      apiName: `helpdesk-${settings.name}`,
      description: `Helpdesk API (${settings.name})`,
      createDefaultStage: false,
      // Behind the edge, clients reach the API through CloudFront, and CloudFront through the custom domain.
      disableExecuteApiEndpoint: settings.edge !== undefined,
      // Off unless the environment lists origins; API Gateway then answers preflights (infra/cors.ts).
      corsPreflight:
        settings.corsOrigins.length > 0
          ? {
              allowOrigins: [...settings.corsOrigins],
              allowMethods: corsAllowMethods().map((m) => CorsHttpMethod[m as keyof typeof CorsHttpMethod]),
              allowHeaders: [...CORS_ALLOW_HEADERS],
              exposeHeaders: [...CORS_EXPOSE_HEADERS],
              maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
            }
          : undefined,
    });
    // Authentication is not API Gateway's: every handler checks HTTP Basic credentials itself
    // (shared/middleware/auth.ts) against the users in the table, as the django-helpdesk API it
    // reproduces does; clients send `Authorization: Basic`, which no API Gateway authorizer type
    // (JWT, IAM, Lambda) accepts without a Lambda authorizer doing the same lookup again.
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authentication is in the functions: every route checks HTTP Basic credentials ' +
        '(shared/middleware/auth.ts), as the API spec requires; the fallback route only answers 404/405 and ' +
        'OPTIONS.',
    });

    // One JSON line per request, kept as long as the functions' logs.
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: settings.logRetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // `$default`: paths carry no stage name, as the handlers and the local runtime expect.
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // The environment's name too, as a literal: the 429 metric filter (monitoring.ts) keys on it.
        format: AccessLogFormat.custom(JSON.stringify({ ...ACCESS_LOG_FIELDS, environment: settings.name })),
      },
    });

    const webhooks = new Webhooks(this, 'Webhooks', { settings, table });
    this.identity = new Identity(this, 'Identity', settings);
    const functionFor = (route: Route): NodejsFunction => {
      const existing = this.functions.get(route.handler);
      if (existing) return existing;
      const fn = this.makeFunction(
        this.groupOf(route.handler),
        route,
        settings,
        { table, listings },
        bucket,
        webhooks,
        search,
      );
      this.functions.set(route.handler, fn);
      return fn;
    };

    for (const route of routes) {
      const fn = functionFor(route);
      const methods = [HttpMethod[route.method]];
      if (route.method === 'GET') methods.push(HttpMethod.HEAD);
      this.api.addRoutes({ path: route.path, methods, integration: this.integrationOf(fn) });
      this.allowInvoke(fn, route.path);
    }

    // Whatever no entry matches under /api: unknown paths (404), other methods on known paths (405),
    // OPTIONS. API Gateway prefers the more specific routes above, whatever their order.
    const fallback = functionFor(fallbackRoute);
    for (const fallbackPath of FALLBACK_PATHS) {
      this.api.addRoutes({ path: fallbackPath, methods: [HttpMethod.ANY], integration: this.integrationOf(fallback) });
      this.allowInvoke(fallback, fallbackPath);
    }

    // The environment's own domain, when it has one: the same stage, at https://<domain>/api/.
    if (settings.customDomain) {
      const domain = new DomainName(this, 'CustomDomain', {
        domainName: settings.customDomain.domainName,
        certificate: Certificate.fromCertificateArn(
          this,
          'CustomDomainCertificate',
          settings.customDomain.certificateArn,
        ),
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      new ApiMapping(this, 'CustomDomainMapping', { api: this.api, domainName: domain, stage: this.stage });
      new CfnOutput(this, 'CustomDomainUrl', {
        value: `https://${settings.customDomain.domainName}/`,
        description: 'Base URL of the API at its own domain',
      });
      new CfnOutput(this, 'CustomDomainTarget', {
        value: domain.regionalDomainName,
        description:
          `Point ${settings.customDomain.domainName} here: ` +
          'a CNAME, or a Route 53 alias in zone CustomDomainHostedZoneId',
      });
      new CfnOutput(this, 'CustomDomainHostedZoneId', { value: domain.regionalHostedZoneId });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API ($default stage)' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
    new CfnOutput(this, 'WebhookSecretArn', {
      value: webhooks.secret.secretArn,
      description: 'Webhook signing secret: receivers use whsec_<value>',
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      settings,
      api: this.api,
      accessLogs,
      functions: this.functions,
    });
    webhooks.alarms.forEach((alarm) => this.monitoring.addAlarm(alarm));
    this.monitoring.addAlarm(new FileSweeper(this, 'FileSweeper', { settings, table, bucket }).alarm);
    this.monitoring.addAlarm(new Escalation(this, 'Escalation', { settings, table }).alarm);
    // Mail out only where the environment turns it on: otherwise no SES resource at all.
    const mail = settings.mail
      ? new Mail(this, 'Mail', { settings: { ...settings, mail: settings.mail }, table, bucket })
      : undefined;
    // Mail in verifies replies' Reply-To tags with mail out's secret (when there is mail out, there are tags).
    const mailIn = settings.mailIn
      ? new MailIn(this, 'MailIn', { settings, mailIn: settings.mailIn, table, bucket, mailSecret: mail?.secret })
      : undefined;
    mailIn?.alarms.forEach((alarm) => this.monitoring.addAlarm(alarm));
    new StreamConsumer(this, 'TicketCounts', { settings, table, listings, search, webhooks, mail }).alarms.forEach(
      (alarm) => this.monitoring.addAlarm(alarm),
    );
    mail?.alarms.forEach((alarm) => this.monitoring.addAlarm(alarm));
    let imap: MailImap | undefined;
    if (settings.mailImap) {
      imap = new MailImap(this, 'MailImap', {
        settings,
        mailImap: settings.mailImap,
        table,
        bucket,
        mailSecret: mail?.secret,
        problemsAlarmed: settings.mailIn !== undefined,
      });
      imap.alarms.forEach((alarm) => this.monitoring.addAlarm(alarm));
    }
    if (mailIn || imap) {
      const release = new MailRelease(this, 'MailRelease', {
        settings,
        table,
        bucket,
        sesMessages: mailIn?.bucket,
        imapMessages: imap?.bucket,
        environment: (mailIn ?? imap)!.ingestEnvironment,
        mailSecret: mail?.secret,
      });
      // The release route may invoke this one function, and is told its name.
      for (const route of routes.filter((r) => r.releasesMail)) {
        const fn = this.functions.get(route.handler)!;
        // The function itself, not its versions or aliases (grantInvoke's `:*`): it has neither.
        fn.addToRolePolicy(
          new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [release.fn.functionArn] }),
        );
        fn.addEnvironment('HELPDESK_MAIL_RELEASE_FUNCTION', release.fn.functionName);
      }
    }
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.monitoring.alarmTopic.topicArn,
      description: 'SNS topic of the alarms: subscribe to it',
    });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
  }

  /** One integration per function, shared by its routes (GET and HEAD, the fallback's two paths). */
  private integrationOf(fn: NodejsFunction): LambdaProxyIntegration {
    let integration = this.integrations.get(fn);
    if (!integration) {
      integration = new LambdaProxyIntegration(`${fn.node.id}Integration`, fn);
      this.integrations.set(fn, integration);
    }
    return integration;
  }

  /**
   * Lets this API invoke `fn` for the routes of `path` (any method: GET and HEAD share one), made
   * beside the function in its nested stack, where it counts against that stack's resources.
   */
  private allowInvoke(fn: NodejsFunction, path: string): void {
    fn.addPermission(`Invoke${functionId(path)}`, {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: this.formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: `*/*${path}` }),
    });
  }

  /** The nested stack of a handler's group, made on first use. */
  private groupOf(handler: string): NestedStack {
    const name = FUNCTION_GROUPS[handler.split('/')[0]!];
    if (!name) throw new Error(`${handler}: its folder has no stack group (FUNCTION_GROUPS in infra/api-stack.ts)`);
    let group = this.groups.get(name);
    if (!group) {
      group = new NestedStack(this, `${name}Functions`, {
        description: `Helpdesk: the functions of the ${name} routes`,
      });
      this.groups.set(name, group);
    }
    return group;
  }

  private makeFunction(
    scope: NestedStack,
    route: Route,
    settings: EnvironmentSettings,
    tables: HelpdeskTables,
    bucket: IBucket,
    webhooks: Webhooks,
    search?: SearchCluster,
  ): NodejsFunction {
    const fn = helpdeskFunction(scope, functionId(route.handler), {
      logScope: this,
      handler: route.handler,
      description: `${route.method} ${route.path} (${route.handler})`,
      settings,
      assets: route.assets,
      reservedConcurrency: writesTable(route) ? settings.writerConcurrency : undefined,
      environment: {
        TABLE_NAME: tables.table.tableName,
        BUCKET_NAME: bucket.bucketName,
        HELPDESK_ACTIVATE_API_ENDPOINT: settings.activateApi,
        ...webhooks.environment,
        // Optional: without it, Basic only (shared/domain/tokens.ts).
        ...(settings.authenticationClasses ? { HELPDESK_AUTHENTICATION_CLASSES: settings.authenticationClasses } : {}),
        ...(settings.perQueueStaffPermission ? { HELPDESK_ENABLE_PER_QUEUE_STAFF_PERMISSION: 'true' } : {}),
        // OpenID Connect's issuer and rules (infra/identity.ts), with `oidc` among the classes.
        ...this.identity.environment,
        // The origins trusted with cross-site writes (shared/domain/cross-origin.ts), as CORS lists them.
        ...(settings.corsOrigins.length ? { HELPDESK_CORS_ORIGINS: settings.corsOrigins.join(',') } : {}),
        // Behind the edge: only requests through CloudFront, and links to its address (infra/edge.ts).
        ...(settings.edge
          ? {
              HELPDESK_ORIGIN_SECRET_NAME: originSecretName(settings.name),
              HELPDESK_PUBLIC_URL: `https://${settings.edge.domainName}`,
            }
          : {}),
        // Without it, search is off: `?search=` answers 400 naming HELPDESK_SEARCH.
        ...(route.searches && search ? search.environment : {}),
      },
    });
    if (route.searches && search) search.grant(fn);
    if (settings.edge) {
      // Secrets Manager appends six characters to a secret's name in its ARN.
      const secretArn = scope.formatArn({
        service: 'secretsmanager',
        region: EDGE_REGION,
        resource: 'secret',
        resourceName: `${originSecretName(settings.name)}-??????`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
      fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }));
    }
    const role = fn.role!;
    if (route.queuesWebhooks) webhooks.queue.grantSendMessages(fn);

    grantTable(fn, tables, grantsOf(route, { oidc: oidcIn(settings) }));

    const actions = [...new Set(route.files)].map((access) => S3_ACTIONS[access]);
    if (actions.length > 0) {
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [bucket.arnForObjects(`${ATTACHMENT_PREFIX}*`)] }));
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagImportedArn(bucket, bucket.bucketArn, scope)}/${ATTACHMENT_PREFIX}*]`,
        reason:
          'Attachment objects of the one bucket only, and only the actions the route declares (no List, no ' +
          'bucket-level action): keys are attachments/<ticket>/<uuid>, made at run time, so no narrower ARN ' +
          'exists for a function that serves any ticket.',
      });
    }
    if (answersCanBeLarge(route)) {
      // An answer past Lambda's response limit is parked and presigned (shared/middleware/large-answers.ts): the
      // presigned GET is allowed only if the signer may read the object.
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['s3:PutObject', 's3:GetObject'],
          resources: [bucket.arnForObjects(`${LARGE_ANSWER_PREFIX}*`)],
        }),
      );
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagImportedArn(bucket, bucket.bucketArn, scope)}/${LARGE_ANSWER_PREFIX}*]`,
        reason:
          'Parked answers of the one bucket only (answers/<uuid>.json, made at run time), written and read back ' +
          'through a presigned link: no List, no other prefix.',
      });
    }
    return fn;
  }
}
