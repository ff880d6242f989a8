/**
 * Template tests of the CDK app. Bundling is skipped (context `aws:cdk:bundling-stacks: []`; it
 * costs over a second per function, `npx cdk synth` covers it) and, except in the prod test, so is
 * aws-cdk-lib's built-in CloudFormation validation: each synth then takes well under a second.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_GROUPS, functionId } from '../../infra/api-stack';
import { buildHelpdesk, type Helpdesk } from '../../infra/app';
import {
  FALLBACK_PATHS,
  answersCanBeLarge,
  fallbackRoute,
  routeByHandler,
  routes,
  type Route,
} from '../../shared/api/routes';
import { ATTACHMENT_PREFIX, LARGE_ANSWER_PREFIX } from '../../shared/store/keys';
import { grantsOf, writesTable, type TableGrant } from '../../shared/api/table-access';
import { LISTINGS_SCHEMA, TABLE_SCHEMA } from '../../shared/store/schema';
import { apiTemplate } from './template';
import type { Json } from '../json';

type Resource = {
  Type: string;
  Properties: Record<string, Json>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};

/**
 * Functions that serve no route: the webhook dispatcher and deliverer (infra/webhooks.ts), the file
 * sweeper (infra/file-sweeper.ts), the escalation run, the table stream's reader and its consumers'
 * retry handler (infra/stream-consumer.ts), each tested in its own file.
 */
const WORKER_FUNCTIONS = 6;
/** Of those, the ones in a nested stack of their own (the retry handler, with the retry queues). */
const NESTED_WORKERS = 1;

const DYNAMO_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

function synth(env: string, { validate = false } = {}): { helpdesk: Helpdesk; data: Template; api: Template } {
  const app = new App({
    context: { env, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: validate,
  });
  const helpdesk = buildHelpdesk(app);
  return { helpdesk, data: Template.fromStack(helpdesk.data), api: apiTemplate(helpdesk.api) };
}

/** A construct's logical id in its own stack (a route function's is its nested stack: infra/api-stack.ts). */
function logicalId(construct: unknown): string {
  const child = ((construct as { node: { defaultChild?: unknown } }).node.defaultChild ?? construct) as CfnFunction;
  return Stack.of(child).getLogicalId(child);
}

/** Every action the role's inline policies allow, with the resources of each statement. */
function roleStatements(
  template: Template,
  roleId: string,
): { actions: string[]; resources: unknown[]; condition?: unknown }[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>).filter((p) =>
    (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })),
  );
  return policies.flatMap((p) =>
    (p.Properties.PolicyDocument.Statement as Record<string, unknown>[]).map((s) => {
      expect(s.Effect).toBe('Allow');
      return { actions: [s.Action].flat() as string[], resources: [s.Resource].flat(), condition: s.Condition };
    }),
  );
}

describe('dev environment', () => {
  let helpdesk: Helpdesk;
  let data: Template;
  let api: Template;
  const allRoutes: Route[] = [...routes, fallbackRoute];

  beforeAll(() => {
    ({ helpdesk, data, api } = synth('dev'));
  });

  function actionsOf(handler: string): string[] {
    const fn = helpdesk.api.functions.get(handler);
    if (!fn) throw new Error(`no function for ${handler}`);
    return roleStatements(api, logicalId(fn.role)).flatMap((s) => s.actions);
  }

  /** A function's S3 actions on the objects under `prefix`. */
  function s3ActionsOn(handler: string, prefix: string): string[] {
    const fn = helpdesk.api.functions.get(handler)!;
    return roleStatements(api, logicalId(fn.role))
      .filter((s) => JSON.stringify(s.resources).includes(`/${prefix}*`))
      .flatMap((s) => s.actions.filter((a) => a.startsWith('s3:')))
      .sort();
  }

  /** Actions granted without an IAM condition. */
  function unconditionalActionsOf(handler: string): string[] {
    const fn = helpdesk.api.functions.get(handler)!;
    return roleStatements(api, logicalId(fn.role)).flatMap((s) => (s.condition ? [] : s.actions));
  }

  it(
    "grants each function its route's table grants and nothing else: actions by partition key pattern, Query by " +
      'index',
    () => {
      const tableArn = { 'Fn::ImportValue': expect.stringContaining('Table') };
      for (const route of allRoutes) {
        const fn = helpdesk.api.functions.get(route.handler)!;
        const statements = roleStatements(api, logicalId(fn.role)).filter((s) =>
          s.actions.some((a) => a.startsWith('dynamodb:')),
        );
        const expected = grantsOf(route);
        const keyed = expected.filter((g) => 'keys' in g);
        const onTable = statements.filter((s) => s.condition);
        // Every keyed grant is one statement on the table itself, under its partition key patterns.
        expect(onTable, route.handler).toHaveLength(keyed.length);
        keyed.forEach((grant, i) => {
          expect(onTable[i]!.actions, route.handler).toEqual(grant.actions.map((a) => `dynamodb:${a}`));
          expect(onTable[i]!.resources, route.handler).toEqual([tableArn]);
          expect(onTable[i]!.condition, route.handler).toEqual({
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': grant.keys },
          });
        });
        // Without a condition: only Query, on each of the listings table's indexes (every item there is a ticket's
        // listing item) where the route reads lists, and only on the table's indexes the route names (no `index/*`).
        const unconditional = statements.filter((s) => !s.condition);
        const listingQueries = expected.some((g) => 'listings' in g && g.listings.includes('Query'));
        const indexes = expected.flatMap((g) => ('index' in g ? [g.index] : []));
        expect(
          unconditional.flatMap((s) => s.actions),
          route.handler,
        ).toEqual([...(listingQueries ? ['dynamodb:Query'] : []), ...(indexes.length ? ['dynamodb:Query'] : [])]);
        const arns = unconditional.flatMap((s) => s.resources).map((r) => JSON.stringify(r));
        const listingArns = arns.filter((arn) => arn.includes('Listings'));
        expect(listingArns, route.handler).toHaveLength(listingQueries ? LISTINGS_SCHEMA.indexes.length : 0);
        LISTINGS_SCHEMA.indexes.forEach((index, i) => {
          if (listingQueries) expect(listingArns[i], route.handler).toContain(`/index/${index.name}"`);
        });
        const indexArns = arns.filter((arn) => !arn.includes('Listings'));
        expect(indexArns.length, route.handler).toBe(new Set(indexes).size);
        for (const arn of indexArns) expect(arn, route.handler).toMatch(/\/index\/gsi[123]"/);
        // Never a Scan or a grant without a key condition on the table; a batch write only beside PutItem and
        // DeleteItem on the same keys (it may do nothing more than they may).
        const all = statements.flatMap((s) => s.actions);
        for (const broad of ['dynamodb:Scan', 'dynamodb:*']) expect(all, route.handler).not.toContain(broad);
        for (const s of statements.filter((s) => s.actions.includes('dynamodb:BatchWriteItem')))
          expect(s.actions, route.handler).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:DeleteItem']));
      }
    },
  );

  it(
    "lets a read-only route write nothing but failed-login counts, the rehash of a user's password (and a POST " +
      "its Idempotency-Key), and tickets/list read only its list indexes and (filtered pages) the page's snapshots " +
      'and ticket collections',
    () => {
      const writes = (handler: string) =>
        grantsOf(routeByHandler(handler)).flatMap((g) =>
          'keys' in g && g.actions.some((a) => ['PutItem', 'UpdateItem', 'DeleteItem'].includes(a)) ? g.keys : [],
        );
      for (const route of allRoutes.filter((r) => !writesTable(r))) {
        expect(writes(route.handler), route.handler).toEqual(
          route.method === 'POST' ? ['USER#*', 'LOGIN#*', 'IDEMPOTENCY#*'] : ['USER#*', 'LOGIN#*'],
        );
      }
      const named = (g: TableGrant) => ('keys' in g ? g.keys : 'index' in g ? [g.index] : ['listings']);
      expect(grantsOf(routeByHandler('tickets/list')).flatMap(named)).toEqual([
        'USER#*',
        'TOKEN#*',
        'USER#*',
        'LOGIN#*',
        // Per-queue permissions: a limited staff member's queues (middleware/queue-access.ts).
        'QUEUES',
        'CUSTOM_FIELDS',
        'COUNTS#ticket',
        'COUNTS#view',
        'gsi1',
        'gsi2',
        'gsi3',
        'listings',
        'LISTED#*',
        'TICKET#*',
      ]);
    },
  );

  it('names the stacks after the environment', () => {
    expect(helpdesk.data.stackName).toBe('Helpdesk-dev-Data');
    expect(helpdesk.api.stackName).toBe('Helpdesk-dev-Api');
  });

  it('makes exactly one arm64 nodejs22.x function per route table entry plus the fallback', () => {
    const functions = api.findResources('AWS::Lambda::Function') as Record<string, Resource>;
    const ours = Object.entries(functions)
      .filter(
        ([id, f]) =>
          !id.startsWith('Webhooks') &&
          !id.startsWith('FileSweeper') &&
          !id.startsWith('EscalationEscalate') &&
          !id.startsWith('TicketCounts') &&
          !id.startsWith('RetryConsumers') &&
          f.Properties.Runtime === 'nodejs22.x' &&
          JSON.stringify(f.Properties.Architectures) === '["arm64"]',
      )
      .map(([, f]) => f);
    const handlers = new Set(allRoutes.map((r) => r.handler));
    expect(handlers.size).toBe(routes.length + 1);
    expect(ours).toHaveLength(handlers.size);
    // No other function (no CDK helper) lives in the API stack, apart from the workers.
    expect(Object.keys(functions)).toHaveLength(handlers.size + WORKER_FUNCTIONS);
    for (const f of ours) {
      expect(f.Properties).toMatchObject({
        Handler: 'index.handler',
        MemorySize: 512,
        Timeout: 15, // a hung dependency gives up in ~8 s: the function still answers its JSON 503
        Environment: {
          Variables: {
            TABLE_NAME: expect.anything(),
            BUCKET_NAME: expect.anything(),
            HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
          },
        },
        LoggingConfig: { LogGroup: expect.anything() },
      });
      // infra/node-options.ts, and no source maps (bundling.ts).
      expect(f.Properties.Environment.Variables.NODE_OPTIONS).toBe('--experimental-async-context-frame');
    }
    for (const route of allRoutes) {
      const fn = helpdesk.api.functions.get(route.handler);
      expect(fn?.node.id).toBe(functionId(route.handler));
    }
    expect(functionId('tickets/list')).toBe('TicketsList');
    expect(functionId('attachments/download')).toBe('AttachmentsDownload');
  });

  it('gives each function its own log group with the retention of the environment', () => {
    // One per function, plus the API's access log.
    api.resourceCountIs('AWS::Logs::LogGroup', routes.length + 2 + WORKER_FUNCTIONS);
    api.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
  });

  it('gives each function a role that may write only to its own log group, and no managed policy', () => {
    const roles = Object.values(api.findResources('AWS::IAM::Role') as Record<string, Resource>);
    // And the escalation schedule's, which may only invoke its function (tests/infra/escalation.test.ts).
    expect(roles).toHaveLength(routes.length + 1 + WORKER_FUNCTIONS + 1);
    for (const role of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    for (const route of allRoutes) {
      const fn = helpdesk.api.functions.get(route.handler)!;
      const logStatements = roleStatements(api, logicalId(fn.role)).filter((s) =>
        s.actions.some((a) => a.startsWith('logs:')),
      );
      expect(logStatements, route.handler).toHaveLength(1);
      expect(logStatements[0]!.actions.sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      const cfn = fn.node.defaultChild as CfnFunction;
      const logGroupId = (helpdesk.api.resolve(cfn.loggingConfig) as { logGroup: { Ref: string } }).logGroup.Ref;
      expect(logStatements[0]!.resources, route.handler).toEqual([{ 'Fn::GetAtt': [logGroupId, 'Arn'] }]);
    }
  });

  it('reserves no concurrency in dev (it can fail deploys on small accounts)', () => {
    for (const f of Object.values(api.findResources('AWS::Lambda::Function') as Record<string, Resource>)) {
      expect(f.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('in prod, reserves 25 executions for each function that writes the table, and none for the others', () => {
    const prod = synth('prod');
    const reserved = (fn: unknown) =>
      (prod.api.findResources('AWS::Lambda::Function')[logicalId(fn)] as Resource).Properties
        .ReservedConcurrentExecutions;
    for (const route of routes)
      expect(reserved(prod.helpdesk.api.functions.get(route.handler)), route.handler).toBe(
        writesTable(route) ? 25 : undefined,
      );
    const total = Object.values(prod.api.findResources('AWS::Lambda::Function') as Record<string, Resource>).reduce(
      (sum, f) => sum + (f.Properties.ReservedConcurrentExecutions ?? 0),
      0,
    );
    // 500, and the escalation's 1 (infra/escalation.ts): an account limit of 601 leaves the 100 Lambda requires.
    expect(total).toBe(25 * routes.filter(writesTable).length + 1);
  });

  it('caps the table at an on-demand maximum throughput per environment', () => {
    data.hasResourceProperties('AWS::DynamoDB::Table', {
      OnDemandThroughput: { MaxReadRequestUnits: 4000, MaxWriteRequestUnits: 2000 },
    });
    synth('prod').data.hasResourceProperties('AWS::DynamoDB::Table', {
      OnDemandThroughput: { MaxReadRequestUnits: 40000, MaxWriteRequestUnits: 20000 },
    });
  });

  it('writes a JSON access log line per request to a log group with the environment retention', () => {
    const stage = Object.values(api.findResources('AWS::ApiGatewayV2::Stage') as Record<string, Resource>)[0]!;
    const settings = stage.Properties.AccessLogSettings as {
      DestinationArn: { 'Fn::GetAtt': [string, string] };
      Format: string;
    };
    expect(JSON.parse(settings.Format)).toEqual({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      method: '$context.httpMethod',
      routeKey: '$context.routeKey',
      status: '$context.status',
      latency: '$context.responseLatency',
      integrationError: '$context.integrationErrorMessage',
      environment: 'dev',
    });
    const [logGroupId, attribute] = settings.DestinationArn['Fn::GetAtt'];
    expect(attribute).toBe('Arn');
    const logGroup = (api.findResources('AWS::Logs::LogGroup') as Record<string, Resource>)[logGroupId];
    expect(logGroup?.Properties.RetentionInDays).toBe(7);
  });

  it('routes METHOD path to the function of each entry, HEAD with every GET, ANY to the fallback', () => {
    const integrations = api.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
    const apiRoutes = Object.values(api.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>);
    const targetOf = new Map<string, string>();
    for (const r of apiRoutes) {
      const join = r.Properties.Target['Fn::Join'][1] as [string, { Ref: string }];
      expect(join[0]).toBe('integrations/');
      const integration = integrations[join[1].Ref];
      expect(integration?.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      targetOf.set(r.Properties.RouteKey as string, integration!.Properties.IntegrationUri['Fn::GetAtt'][0] as string);
    }

    const expected = new Map<string, string>();
    for (const route of routes) {
      const fnId = logicalId(helpdesk.api.functions.get(route.handler));
      expected.set(`${route.method} ${route.path}`, fnId);
      if (route.method === 'GET') expected.set(`HEAD ${route.path}`, fnId);
    }
    const fallbackId = logicalId(helpdesk.api.functions.get(fallbackRoute.handler));
    expected.set('ANY /api/{proxy+}', fallbackId);
    expected.set('ANY /api', fallbackId);

    expect(apiRoutes).toHaveLength(expected.size);
    expect(Object.fromEntries(targetOf)).toEqual(Object.fromEntries(expected));
    expect(routes.every((r) => !r.path.endsWith('/'))).toBe(true);
  });

  it(
    'lets the API invoke each function for its own paths only: one permission ' + 'per path, GET and HEAD sharing it',
    () => {
      const fromApi = Object.values(api.findResources('AWS::Lambda::Permission') as Record<string, Resource>).filter(
        (p) => p.Properties.Principal === 'apigateway.amazonaws.com',
      );
      const pathsOf = new Map<string, string[]>();
      for (const permission of fromApi) {
        const parts = permission.Properties.SourceArn['Fn::Join'][1] as unknown[];
        expect(parts.at(-2), 'this API').toEqual({ Ref: logicalId(helpdesk.api.api) });
        const fn = permission.Properties.FunctionName['Fn::GetAtt'][0] as string;
        pathsOf.set(fn, [...(pathsOf.get(fn) ?? []), (parts.at(-1) as string).replace(/^\/\*\/\*/, '')]);
      }
      const expected = new Map<string, string[]>();
      for (const route of routes) expected.set(logicalId(helpdesk.api.functions.get(route.handler)), [route.path]);
      expected.set(logicalId(helpdesk.api.functions.get(fallbackRoute.handler)), [...FALLBACK_PATHS]);
      expect(Object.fromEntries(pathsOf)).toEqual(Object.fromEntries(expected));
    },
  );

  it('serves the $default stage with the environment throttle, and outputs the URL, table and bucket', () => {
    api.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    api.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    api.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    api.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
    const outputs = api.findOutputs('*');
    expect(Object.keys(outputs).sort()).toEqual([
      'AlarmTopicArn',
      'ApiUrl',
      'BucketName',
      'DashboardName',
      'TableName',
      'WebhookSecretArn',
    ]);
  });

  it('grants each function exactly the table and file access its route declares', () => {
    for (const route of allRoutes) {
      const actions = actionsOf(route.handler);
      const expectedS3 = route.files
        .map((f) => ({ read: 's3:GetObject', write: 's3:PutObject', delete: 's3:DeleteObject' })[f])
        .sort();
      expect(s3ActionsOn(route.handler, ATTACHMENT_PREFIX), route.handler).toEqual(expectedS3);
      // An answer too large to return is parked and presigned (shared/middleware/large-answers.ts).
      const parks = answersCanBeLarge(route) ? ['s3:GetObject', 's3:PutObject'] : [];
      expect(s3ActionsOn(route.handler, LARGE_ANSWER_PREFIX), route.handler).toEqual(parks);
      expect(actions.filter((a) => a.startsWith('s3:')).length, route.handler).toBe(expectedS3.length + parks.length);
      expect(
        actions.some((a) => a.startsWith('kms:')),
        route.handler,
      ).toBe(false);
      expect(
        actions.some((a) => a.includes('*') && !a.startsWith('dynamodb:')),
        route.handler,
      ).toBe(false);
      expect(
        unconditionalActionsOf(route.handler).filter((a) => a.startsWith('dynamodb:') && a !== 'dynamodb:Query'),
        route.handler,
      ).toEqual([]);
    }
  });

  it('scopes file permissions to the objects of the attachments bucket', () => {
    for (const route of allRoutes) {
      const fn = helpdesk.api.functions.get(route.handler)!;
      for (const statement of roleStatements(api, logicalId(fn.role))) {
        if (!statement.actions.some((a) => a.startsWith('s3:'))) continue;
        expect(statement.resources).toHaveLength(1);
        const resource = JSON.stringify(statement.resources[0]);
        expect(resource).toContain('Fn::ImportValue');
        expect(resource).toContain('/*');
      }
    }
  });

  it(
    'keeps tickets/list read-only and off the attachments (it parks a large answer only), tickets/create writing, ' +
      'attachments/download reading files',
    () => {
      const list = unconditionalActionsOf('tickets/list');
      for (const action of DYNAMO_WRITE_ACTIONS) expect(list).not.toContain(action);
      expect(s3ActionsOn('tickets/list', ATTACHMENT_PREFIX)).toEqual([]);
      expect(s3ActionsOn('tickets/list', LARGE_ANSWER_PREFIX)).toEqual(['s3:GetObject', 's3:PutObject']);
      expect(s3ActionsOn('users/me', LARGE_ANSWER_PREFIX)).toEqual([]);

      const create = actionsOf('tickets/create');
      expect(create).toContain('s3:PutObject');
      expect(create).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']));

      const download = actionsOf('attachments/download');
      expect(download).toContain('s3:GetObject');
      expect(download).not.toContain('s3:PutObject');
    },
  );

  it('builds the table and the listings table from the shared schemas', () => {
    data.resourceCountIs('AWS::DynamoDB::Table', 2);
    const gsi = (name: string, pk: string, sk: string, projection: string) => ({
      IndexName: name,
      KeySchema: [
        { AttributeName: pk, KeyType: 'HASH' },
        { AttributeName: sk, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: projection },
    });
    data.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.timeToLive, Enabled: true },
      GlobalSecondaryIndexes: TABLE_SCHEMA.indexes.map((i) => gsi(i.name, i.partitionKey, i.sortKey, i.projection)),
    });
    const [table, listings] = Object.values(data.findResources('AWS::DynamoDB::Table') as Record<string, Resource>);
    for (const attribute of table!.Properties.AttributeDefinitions as { AttributeType: string }[]) {
      expect(attribute.AttributeType).toBe('S');
    }
    expect(table!.Properties.AttributeDefinitions).toHaveLength(2 + 2 * TABLE_SCHEMA.indexes.length);
    expect(table!.DeletionPolicy).toBe('Delete');

    // The listings table: named after the table, an index per dimension; the agent views' project what they carry.
    data.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: { 'Fn::Join': ['', [{ Ref: Match.stringLikeRegexp('^Table') }, '-listings']] },
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: LISTINGS_SCHEMA.partitionKey, KeyType: 'HASH' }],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: LISTINGS_SCHEMA.timeToLive, Enabled: true },
      GlobalSecondaryIndexes: LISTINGS_SCHEMA.indexes.map((i) => ({
        ...gsi(i.name, i.partitionKey, i.sortKey, i.carries ? 'INCLUDE' : 'KEYS_ONLY'),
        ...(i.carries ? { Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...i.carries] } } : {}),
      })),
    });
    expect(LISTINGS_SCHEMA.indexes).toHaveLength(8);
    expect(listings!.Properties.StreamSpecification).toBeUndefined();
    expect(listings!.DeletionPolicy).toBe('Delete');
  });

  it('keeps the bucket private, TLS-only, encrypted and versioned', () => {
    data.resourceCountIs('AWS::S3::Bucket', 1);
    data.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({
            Status: 'Enabled',
            NoncurrentVersionExpiration: { NoncurrentDays: 30 },
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          }),
          {
            Id: 'parked-answers',
            Status: 'Enabled',
            Prefix: LARGE_ANSWER_PREFIX,
            ExpirationInDays: 1,
            NoncurrentVersionExpiration: { NoncurrentDays: 1 },
          },
        ],
      },
      CorsConfiguration: { CorsRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], MaxAge: 3000 }] },
    });
    data.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Principal: { AWS: '*' },
          }),
        ]),
      },
    });
  });
});

describe('stack headroom', () => {
  /** CloudFormation refuses a stack of more than 500 resources; a stack past 70% of it fails here. */
  const LIMIT = 500;
  const HEADROOM = 0.7;
  const FULL = {
    domainName: 'help.example.com',
    certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/api',
    edgeDomainName: 'api.example.com',
    edgeCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/edge',
    alarmEmail: 'ops@example.com',
  };

  it.each([
    { name: 'dev', env: 'dev', context: {} },
    { name: 'prod', env: 'prod', context: {} },
    { name: 'prod with a custom domain, the edge and alarm e-mail', env: 'prod', context: FULL },
  ])(
    'keeps every stack of $name, nested stacks included, within 70 percent of the 500-resource limit',
    ({ env, context }) => {
      const app = new App({
        context: { env, 'aws:cdk:bundling-stacks': [], ...context },
        builtinCloudFormationValidation: false,
      });
      buildHelpdesk(app);
      const counts = Object.fromEntries(
        app.node
          .findAll()
          .filter((c): c is Stack => c instanceof Stack)
          .map((stack) => [stack.node.path, Object.keys(Template.fromStack(stack).toJSON().Resources ?? {}).length]),
      );
      // The API stack, its nested stacks of route functions (one per group), the data stack, and the edge when asked
      // for.
      expect(Object.keys(counts).length).toBeGreaterThanOrEqual(6);
      for (const [path, count] of Object.entries(counts)) expect(count, path).toBeLessThanOrEqual(LIMIT * HEADROOM);
    },
  );

  it(
    'puts every route function in the nested stack of its group, and the routes, integrations and log groups in ' +
      'the API stack',
    () => {
      const app = new App({
        context: { env: 'dev', 'aws:cdk:bundling-stacks': [] },
        builtinCloudFormationValidation: false,
      });
      const { api } = buildHelpdesk(app);
      for (const route of [...routes, fallbackRoute]) {
        const fn = api.functions.get(route.handler)!;
        expect(Stack.of(fn).node.id, route.handler).toBe(`${FUNCTION_GROUPS[route.handler.split('/')[0]!]}Functions`);
      }
      const parent = Template.fromStack(api);
      parent.resourceCountIs(
        'AWS::ApiGatewayV2::Route',
        routes.length + routes.filter((r) => r.method === 'GET').length + FALLBACK_PATHS.length,
      );
      parent.resourceCountIs('AWS::Logs::LogGroup', routes.length + 2 + WORKER_FUNCTIONS - NESTED_WORKERS);
      // The route groups' and the stream consumers' retries (infra/stream-consumer.ts).
      parent.resourceCountIs('AWS::CloudFormation::Stack', new Set(Object.values(FUNCTION_GROUPS)).size + 1);
    },
  );
});

describe('prod environment', () => {
  it(
    'retains the table and bucket and protects them from deletion (with CloudFormation validation)',
    { timeout: 180_000 },
    () => {
      const { helpdesk, data, api } = synth('prod', { validate: true });
      expect(helpdesk.data.stackName).toBe('Helpdesk-prod-Data');
      expect(helpdesk.data.terminationProtection).toBe(true);
      data.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
      });
      data.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      // No auto-delete helper outside throwaway environments.
      data.resourceCountIs('AWS::Lambda::Function', 0);
      data.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
      api.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
      });
      api.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    },
  ); // the validator's WASM takes ~5 s to load, once; a busy 2-core machine takes far longer

  it('rejects an unknown environment name', () => {
    expect(() => synth('qa')).toThrow(/Unknown environment "qa"/);
  });
});
