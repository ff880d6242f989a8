/**
 * One Lambda function as every function of the stacks is made: bundled by infra/bundling.ts, arm64,
 * its own log group, and its own role that may write only to that log group (instead of the AWS
 * managed AWSLambdaBasicExecutionRole, which allows writing any log group of the account).
 */
import path from 'node:path';
import { ROUTE_FUNCTION_TIMEOUT_SECONDS } from '../shared/api/function-limits';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, FilterRule, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { lambdaBundling } from './bundling';
import { SERVICE_NAME } from '../shared/observability';
import { oidcIn, type EnvironmentSettings } from './environments';
import type { TableGrant } from '../shared/api/table-access';
import { LISTING_INDEXES } from '../shared/store/keys';
import { NODE_OPTIONS } from './node-options';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Well under API Gateway's 30 s integration limit. */
export const API_FUNCTION_TIMEOUT = Duration.seconds(ROUTE_FUNCTION_TIMEOUT_SECONDS);

export interface HelpdeskFunctionProps {
  /** Handler file under functions/, without extension. */
  handler: string;
  description: string;
  settings: EnvironmentSettings;
  environment: Record<string, string>;
  /**
   * Default API_FUNCTION_TIMEOUT: a cold start, the calls before it and one hung dependency (DynamoDB
   * gives up after ~8 s, S3 after 4 s: shared/store) still end in the function's own JSON 503.
   */
  timeout?: Duration;
  /** Files from node_modules the function reads at run time (Route.assets). */
  assets?: readonly string[];
  /** Reserved concurrency (EnvironmentSettings.writerConcurrency for table writers); none by default. */
  reservedConcurrency?: number;
  /**
   * Where the function's log group is made, when not beside it: the route functions live in nested
   * stacks (infra/api-stack.ts) but keep their log groups in the API stack, where they always were,
   * so that regrouping functions never deletes a log.
   */
  logScope?: Construct;
}

export function helpdeskFunction(scope: Construct, id: string, props: HelpdeskFunctionProps): NodejsFunction {
  const { settings } = props;
  const logGroup = new LogGroup(props.logScope ?? scope, `${id}Logs`, {
    retention: settings.logRetentionDays,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  // The stack creates the log group, so the role needs no logs:CreateLogGroup.
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `Runs ${props.handler}`,
  });
  logGroup.grantWrite(role);

  const fn = new NodejsFunction(scope, id, {
    description: props.description,
    entry: path.join(PROJECT_ROOT, 'functions', `${props.handler}.ts`),
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: settings.memorySize,
    timeout: props.timeout ?? API_FUNCTION_TIMEOUT,
    reservedConcurrentExecutions: props.reservedConcurrency,
    role,
    logGroup,
    // X-Ray: every invocation is traced (sampled); the functions of settings.tracedHandlers add subsegments.
    tracing: Tracing.ACTIVE,
    environment: {
      ...props.environment,
      HELPDESK_ENVIRONMENT: settings.name,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_LOG_LEVEL: settings.logLevel,
      NODE_OPTIONS: NODE_OPTIONS.join(' '),
    },
    bundling: lambdaBundling(
      props.handler,
      props.assets,
      settings.tracedHandlers.includes(props.handler),
      oidcIn(settings),
    ),
  });
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'xray:PutTraceSegments and xray:PutTelemetryRecords (added by active tracing) support no resource-level ' +
      'permissions: AWS documents Resource "*" for them. (The webhook dispatcher also has dynamodb:ListStreams ' +
      'on "*", which the DynamoDB event source needs and which has no resource-level permissions either.)',
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'nodejs22.x on purpose: the bundles target node22 and the code keeps to Node 20/22 APIs (docs/local.md); ' +
      'moving to nodejs24.x is a separate, tested change.',
  });
  return fn;
}

/** The tables a function's grants name: the table, and the listings table (shared/store/schema.ts). */
export interface HelpdeskTables {
  table: ITable;
  listings: ITable;
}

/**
 * The IAM statements of table grants (shared/api/table-access.ts): each grant's actions on the table, on
 * the condition that every partition key a request touches matches the grant's patterns
 * (`ForAllValues`: a BatchGetItem or a transaction is allowed only if all its items are), and Query
 * on each named index; a `listings` grant's actions on the listings table (every item a listing item), its Query on
 * each of the listings table's indexes.
 */
export function tablePolicy(grants: readonly TableGrant[], tableArn: string, listingsArn?: string): PolicyStatement[] {
  const indexes = new Set<string>();
  const statements: PolicyStatement[] = [];
  for (const grant of grants) {
    if ('index' in grant) indexes.add(grant.index);
    else if ('listings' in grant) {
      if (listingsArn === undefined) throw new Error('Grants name the listings table, and no listings table was given');
      const queries = grant.listings.includes('Query');
      const items = grant.listings.filter((action) => action !== 'Query');
      if (queries)
        statements.push(
          new PolicyStatement({
            actions: ['dynamodb:Query'],
            resources: Object.values(LISTING_INDEXES).map((index) => `${listingsArn}/index/${index.name}`),
          }),
        );
      if (items.length)
        statements.push(
          new PolicyStatement({ actions: items.map((action) => `dynamodb:${action}`), resources: [listingsArn] }),
        );
    } else
      statements.push(
        new PolicyStatement({
          actions: grant.actions.map((action) => `dynamodb:${action}`),
          resources: [tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...grant.keys] } },
        }),
      );
  }
  if (indexes.size > 0)
    statements.push(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [...indexes].sort().map((index) => `${tableArn}/index/${index}`),
      }),
    );
  return statements;
}

/** Gives `fn` exactly `grants` on the table (and, where they name it, on the listings table). */
export function grantTable(fn: NodejsFunction, tables: ITable | HelpdeskTables, grants: readonly TableGrant[]): void {
  const { table, listings } = 'tableArn' in tables ? { table: tables, listings: undefined } : tables;
  for (const statement of tablePolicy(grants, table.tableArn, listings?.tableArn)) fn.addToRolePolicy(statement);
}

/** A stream filter's "equals" rule (FilterRule.isEqual, which aws-cdk-lib types as `any`). */
export function filterEquals(value: string): unknown {
  return FilterRule.isEqual(value);
}
