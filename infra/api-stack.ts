/**
 * The stateless stack: the HTTP API and one function per entry of the route table (plus the
 * fallback), each granted exactly the table and file access its route declares.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { EnvironmentSettings } from './environments';
import { BUNDLE_ALIASES, BUNDLE_SETTINGS } from './bundling';
import { FALLBACK_PATHS, fallbackRoute, routes, type FileAccess, type Route } from './routes';

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
    // `$default`: paths carry no stage name, as the handlers and the local runtime expect.
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.throttle,
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
      logGroup,
      environment: {
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        HELPDESK_ACTIVATE_API_ENDPOINT: settings.activateApi,
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

    if (route.table === 'write') table.grantReadWriteData(fn);
    else table.grantReadData(fn);

    const actions = [...new Set(route.files)].map((access) => S3_ACTIONS[access]);
    if (actions.length > 0) {
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [bucket.arnForObjects('*')] }));
    }
    return fn;
  }
}
