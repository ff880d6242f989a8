/**
 * The stateless stack: the HTTP API and one function per entry of the route table (plus the
 * fallback), each granted exactly the table and file access its route declares.
 *
 * cdk-nag (AwsSolutions, see infra/nag.ts) findings that are accepted rather than fixed are
 * acknowledged next to the construct they concern, each with its reason.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, LogGroupLogDestination, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct, IConstruct } from 'constructs';
import type { EnvironmentSettings } from './environments';
import { BUNDLE_ALIASES, BUNDLE_SETTINGS } from './bundling';
import { ATTACHMENT_PREFIX, LOGIN_PREFIX } from '../shared/store/keys';
import { FALLBACK_PATHS, fallbackRoute, routes, type FileAccess, type Route } from './routes';

/** What counting a failed login needs (store/login-attempts.ts). */
const LOGIN_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

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

/**
 * How cdk-nag names another stack's ARN in a finding, for acknowledging exactly that finding: by the
 * time the checks run (after synthesis), the reference is `Fn::ImportValue` of the automatic export,
 * whose name `exportValue` (no name given) returns without adding anything to the template.
 * tests/infra/nag.test.ts fails if this ever stops matching.
 */
function nagImportedArn(resource: IConstruct, arn: string, consumer: Stack): string {
  const producer = Stack.of(resource);
  if (producer === consumer) throw new Error('nagImportedArn: the ARN is not from another stack');
  const imported = consumer.resolve(producer.exportValue(arn)) as { 'Fn::ImportValue'?: string };
  if (typeof imported['Fn::ImportValue'] !== 'string') throw new Error(`nagImportedArn: no export for ${arn}`);
  return imported['Fn::ImportValue'];
}

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

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    const { settings, table, bucket, ...stackProps } = props;
    super(scope, id, stackProps);

    this.api = new HttpApi(this, 'HttpApi', {
      apiName: `helpdesk-${settings.name}`,
      description: `Helpdesk API (${settings.name})`,
      createDefaultStage: false,
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
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    const functionFor = (route: Route): NodejsFunction => {
      const existing = this.functions.get(route.handler);
      if (existing) return existing;
      const fn = this.makeFunction(route, settings, table, bucket);
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

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the API ($default stage)' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
  }

  private makeFunction(route: Route, settings: EnvironmentSettings, table: ITable, bucket: IBucket): NodejsFunction {
    const id = functionId(route.handler);
    const logGroup = new LogGroup(this, `${id}Logs`, {
      retention: settings.logRetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Its own role instead of the default one with the AWS managed AWSLambdaBasicExecutionRole,
    // which allows creating and writing any log group of the account: this one may only write to
    // the function's own log group (which the stack creates, so no logs:CreateLogGroup).
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${route.handler}`,
    });
    logGroup.grantWrite(role);

    const fn = new NodejsFunction(this, id, {
      description: `${route.method} ${route.path} (${route.handler})`,
      entry: path.join(PROJECT_ROOT, 'functions', `${route.handler}.ts`),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: settings.memorySize,
      timeout: Duration.seconds(10),
      reservedConcurrentExecutions: settings.reservedConcurrency,
      role,
      logGroup,
      environment: {
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        HELPDESK_ACTIVATE_API_ENDPOINT: settings.activateApi,
        // Optional: without it, Basic only (shared/domain/tokens.ts).
        ...(settings.authenticationClasses ? { HELPDESK_AUTHENTICATION_CLASSES: settings.authenticationClasses } : {}),
      },
      bundling: {
        format: OutputFormat.ESM,
        minify: BUNDLE_SETTINGS.minify,
        target: BUNDLE_SETTINGS.target,
        sourceMap: false,
        mainFields: [...BUNDLE_SETTINGS.mainFields],
        banner: BUNDLE_SETTINGS.banner,
        esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
        // Bundle everything, the AWS SDK v3 included: smaller cold start than the runtime's copy.
        externalModules: [],
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
      },
    });

    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'nodejs22.x on purpose: the bundles target node22 and the code keeps to Node 20/22 APIs (shared/toolchain.md); moving to nodejs24.x is a separate, tested change.',
    });

    if (route.table === 'write') table.grantReadWriteData(fn);
    else {
      table.grantReadData(fn);
      // Every function authenticates, and a failed login is counted (shared/store/login-attempts.ts):
      // a read-only function may write those items and nothing else, by their partition key.
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: LOGIN_WRITE_ACTIONS,
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${LOGIN_PREFIX}*`] } },
        }),
      );
    }
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagImportedArn(table, table.tableArn, this)}/index/*]`,
      reason:
        "`index/*` of the one table (from grantRead*Data): only this table's GSIs, whose items the function may already read in the base table; naming each index would grant the same and break silently when an index is added.",
    });

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
