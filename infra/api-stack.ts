/**
 * The stateless stack: the HTTP API and one function per entry of the route table (plus the
 * fallback), each granted exactly the table and file access its route declares.
 *
 * cdk-nag (AwsSolutions, see infra/nag.ts) findings that are accepted rather than fixed are
 * acknowledged next to the construct they concern, each with its reason.
 */
import { ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { ApiMapping, CorsHttpMethod, DomainName, HttpApi, HttpMethod, LogGroupLogDestination, SecurityPolicy, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { EnvironmentSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import { nagImportedArn } from './nag';
import { Webhooks } from './webhooks';
import { FileSweeper } from './file-sweeper';
import { TicketCounts } from './ticket-counts';
import { ATTACHMENT_PREFIX } from '../shared/store/keys';
import { grantsOf, writesTable } from '../shared/api/table-access';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS, corsAllowMethods } from './cors';
import { Monitoring } from './monitoring';
import { EDGE_REGION, originSecretName } from './edge';
import { FALLBACK_PATHS, fallbackRoute, routes, type FileAccess, type Route } from '../shared/api/routes';


const S3_ACTIONS: Record<FileAccess, string> = {
  read: 's3:GetObject',
  write: 's3:PutObject',
  delete: 's3:DeleteObject',
};

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
  bucket: IBucket;
}

export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The function of each handler path (`tickets/list` ...). */
  readonly functions = new Map<string, NodejsFunction>();
  /** Dashboard, alarms and the alarm topic: `monitoring.addAlarm(alarm)` notifies the topic too. */
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    const { settings, table, bucket, ...stackProps } = props;
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
        'Authentication is in the functions: every route checks HTTP Basic credentials (shared/middleware/auth.ts), as the API spec requires; the fallback route only answers 404/405 and OPTIONS.',
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
    const functionFor = (route: Route): NodejsFunction => {
      const existing = this.functions.get(route.handler);
      if (existing) return existing;
      const fn = this.makeFunction(route, settings, table, bucket, webhooks);
      this.functions.set(route.handler, fn);
      return fn;
    };

    for (const route of routes) {
      const fn = functionFor(route);
      const methods = [HttpMethod[route.method]];
      if (route.method === 'GET') methods.push(HttpMethod.HEAD);
      this.api.addRoutes({
        path: route.path,
        methods,
        integration: new HttpLambdaIntegration(`${functionId(route.handler)}Integration`, fn),
      });
    }

    // Whatever no entry matches under /api: unknown paths (404), other methods on known paths (405),
    // OPTIONS. API Gateway prefers the more specific routes above, whatever their order.
    const fallback = functionFor(fallbackRoute);
    const fallbackIntegration = new HttpLambdaIntegration(`${functionId(fallbackRoute.handler)}Integration`, fallback);
    for (const fallbackPath of FALLBACK_PATHS) {
      this.api.addRoutes({ path: fallbackPath, methods: [HttpMethod.ANY], integration: fallbackIntegration });
    }

    // The environment's own domain, when it has one: the same stage, at https://<domain>/api/.
    if (settings.customDomain) {
      const domain = new DomainName(this, 'CustomDomain', {
        domainName: settings.customDomain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'CustomDomainCertificate', settings.customDomain.certificateArn),
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      new ApiMapping(this, 'CustomDomainMapping', { api: this.api, domainName: domain, stage: this.stage });
      new CfnOutput(this, 'CustomDomainUrl', { value: `https://${settings.customDomain.domainName}/`, description: 'Base URL of the API at its own domain' });
      new CfnOutput(this, 'CustomDomainTarget', {
        value: domain.regionalDomainName,
        description: `Point ${settings.customDomain.domainName} here: a CNAME, or a Route 53 alias in zone CustomDomainHostedZoneId`,
      });
      new CfnOutput(this, 'CustomDomainHostedZoneId', { value: domain.regionalHostedZoneId });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API ($default stage)' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
    new CfnOutput(this, 'WebhookSecretArn', { value: webhooks.secret.secretArn, description: 'Webhook signing secret: receivers use whsec_<value>' });

    this.monitoring = new Monitoring(this, 'Monitoring', { settings, api: this.api, accessLogs, functions: this.functions });
    webhooks.alarms.forEach((alarm) => this.monitoring.addAlarm(alarm));
    this.monitoring.addAlarm(new FileSweeper(this, 'FileSweeper', { settings, table, bucket }).alarm);
    this.monitoring.addAlarm(new TicketCounts(this, 'TicketCounts', { settings, table }).alarm);
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.alarmTopic.topicArn, description: 'SNS topic of the alarms: subscribe to it' });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
  }

  private makeFunction(route: Route, settings: EnvironmentSettings, table: ITable, bucket: IBucket, webhooks: Webhooks): NodejsFunction {
    const fn = helpdeskFunction(this, functionId(route.handler), {
      handler: route.handler,
      description: `${route.method} ${route.path} (${route.handler})`,
      settings,
      assets: route.assets,
      reservedConcurrency: writesTable(route) ? settings.writerConcurrency : undefined,
      environment: {
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        HELPDESK_ACTIVATE_API_ENDPOINT: settings.activateApi,
        ...webhooks.environment,
        // Optional: without it, Basic only (shared/domain/tokens.ts).
        ...(settings.authenticationClasses ? { HELPDESK_AUTHENTICATION_CLASSES: settings.authenticationClasses } : {}),
        // The origins trusted with cross-site writes (shared/domain/cross-origin.ts), as CORS lists them.
        ...(settings.corsOrigins.length ? { HELPDESK_CORS_ORIGINS: settings.corsOrigins.join(',') } : {}),
        // Behind the edge: only requests through CloudFront, and links to its address (infra/edge.ts).
        ...(settings.edge ? { HELPDESK_ORIGIN_SECRET_NAME: originSecretName(settings.name), HELPDESK_PUBLIC_URL: `https://${settings.edge.domainName}` } : {}),
      },
    });
    if (settings.edge) {
      // Secrets Manager appends six characters to a secret's name in its ARN.
      const secretArn = this.formatArn({ service: 'secretsmanager', region: EDGE_REGION, resource: 'secret', resourceName: `${originSecretName(settings.name)}-??????`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
      fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretArn] }));
    }
    const role = fn.role!;
    if (route.queuesWebhooks) webhooks.queue.grantSendMessages(fn);

    grantTable(fn, table, grantsOf(route));

    const actions = [...new Set(route.files)].map((access) => S3_ACTIONS[access]);
    if (actions.length > 0) {
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [bucket.arnForObjects(`${ATTACHMENT_PREFIX}*`)] }));
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagImportedArn(bucket, bucket.bucketArn, this)}/${ATTACHMENT_PREFIX}*]`,
        reason:
          'Attachment objects of the one bucket only, and only the actions the route declares (no List, no bucket-level action): keys are attachments/<ticket>/<uuid>, made at run time, so no narrower ARN exists for a function that serves any ticket.',
      });
    }
    return fn;
  }
}
