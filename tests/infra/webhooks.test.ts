/** Template tests of the webhook pipeline (infra/webhooks.ts): stream, functions, queues, alarms, grants. */
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHelpdesk, type Helpdesk } from '../../infra/app';
import { environments } from '../../infra/environments';
import { DEFAULT_RETRY_DELAYS } from '../../shared/domain/webhooks';

type Resource = { Type: string; Properties: Record<string, any> };

let helpdesk: Helpdesk;
let api: Template;
let data: Template;

beforeAll(() => {
  const app = new App({ context: { env: 'dev', 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  helpdesk = buildHelpdesk(app);
  api = Template.fromStack(helpdesk.api);
  data = Template.fromStack(helpdesk.data);
});

function functionByHandler(handler: string): [string, Resource] {
  const found = Object.entries(api.findResources('AWS::Lambda::Function') as Record<string, Resource>).filter(([, r]) =>
    String(r.Properties.Description ?? '').length && JSON.stringify(r).includes(handler),
  );
  const byDescription = Object.entries(api.findResources('AWS::Lambda::Function') as Record<string, Resource>).find(([id]) => id.startsWith(handler));
  const match = byDescription ?? found[0];
  if (!match) throw new Error(`no function ${handler}`);
  return match;
}

/** The statements of the inline policies attached to a function's role. */
function statementsOf(fnLogicalId: string): Record<string, any>[] {
  const fn = api.findResources('AWS::Lambda::Function')[fnLogicalId] as Resource;
  const role = fn.Properties.Role['Fn::GetAtt'][0];
  return Object.values(api.findResources('AWS::IAM::Policy') as Record<string, Resource>)
    .filter((p) => (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: role })))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, any>[]);
}
const actions = (statements: Record<string, any>[]) => statements.flatMap((s) => [s.Action].flat() as string[]);

describe('webhook pipeline', () => {
  it('the table streams new images', () => {
    data.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
  });

  it('the dispatcher reads the stream filtered to inserted outbox items, with retries and a failure queue', () => {
    const [dispatchId] = functionByHandler('WebhooksDispatch');
    api.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: dispatchId },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['webhook-event'] } } } }) }] },
    });
  });

  it('deliveries queue: encrypted, TLS only, one receive per attempt, then a dead-letter queue', () => {
    const queues = api.findResources('AWS::SQS::Queue') as Record<string, Resource>;
    expect(Object.keys(queues)).toHaveLength(3);
    for (const q of Object.values(queues)) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    const main = Object.values(queues).find((q) => q.Properties.RedrivePolicy)!;
    expect(main.Properties.RedrivePolicy.maxReceiveCount).toBe(DEFAULT_RETRY_DELAYS.length + 1);
    expect(main.Properties.MessageRetentionPeriod).toBe(14 * 86400);
    // TLS only on every queue.
    expect(Object.keys(api.findResources('AWS::SQS::QueuePolicy'))).toHaveLength(3);
    const [deliverId] = functionByHandler('WebhooksDeliver');
    api.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: { Ref: deliverId }, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  });

  it('an alarm fires on the first message in each failure queue', () => {
    const alarms = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).filter((a) =>
      String(a.Properties.AlarmDescription).includes('webhook'),
    );
    expect(alarms).toHaveLength(2);
    for (const a of alarms) expect(a.Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('least privilege: the dispatcher writes only the outbox and the deliveries, the deliverer only the deliveries', () => {
    const [dispatchId] = functionByHandler('WebhooksDispatch');
    const dispatch = statementsOf(dispatchId);
    const dispatchWrites = dispatch.filter((s) => [s.Action].flat().some((a: string) => /PutItem|DeleteItem|UpdateItem|BatchWrite/.test(a)));
    expect(dispatchWrites).toHaveLength(1);
    expect(dispatchWrites[0]!.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['OUTBOX', 'WEBHOOK_DELIVERIES'] } });
    expect(actions(dispatch)).toContain('sqs:SendMessage');
    expect(actions(dispatch)).not.toContain('secretsmanager:GetSecretValue');
    // The wildcard resources (acknowledged in infra/lambda.ts): X-Ray's, and the event source's ListStreams.
    expect(dispatch.filter((s) => s.Resource === '*').flatMap((s) => [s.Action].flat()).sort()).toEqual(['dynamodb:ListStreams', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);

    const [deliverId] = functionByHandler('WebhooksDeliver');
    const deliver = statementsOf(deliverId);
    const table = deliver.filter((s) => [s.Action].flat().some((a: string) => a.startsWith('dynamodb:') && !a.includes('Stream')));
    expect(table).toHaveLength(1);
    expect(table[0]!.Action).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    expect(table[0]!.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['WEBHOOK_DELIVERIES'] } });
    expect(actions(deliver)).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue', 'sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage']));
    expect(actions(deliver)).not.toContain('sqs:SendMessage');
  });

  it('only the redeliver route may queue deliveries; the secret reaches no API function', () => {
    for (const [handler, fn] of helpdesk.api.functions) {
      const id = helpdesk.api.getLogicalId(fn.node.defaultChild as never);
      const granted = actions(statementsOf(id));
      expect(granted.includes('sqs:SendMessage'), handler).toBe(handler === 'webhook-deliveries/redeliver');
      expect(granted.some((a) => a.startsWith('secretsmanager:')), handler).toBe(false);
      const env = (api.findResources('AWS::Lambda::Function')[id] as Resource).Properties.Environment.Variables;
      expect(env.HELPDESK_WEBHOOK_SECRET_ARN, handler).toBeUndefined();
      expect(env).toHaveProperty('HELPDESK_NEW_TICKET_WEBHOOK_URLS');
    }
  });

  it('the signing secret is generated in Secrets Manager, never in the template', () => {
    api.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: { PasswordLength: 32, ExcludePunctuation: true } });
    expect(JSON.stringify(api.toJSON())).not.toMatch(/whsec_[A-Za-z0-9+/]{16,}/);
  });

  it('synth refuses receiver URLs the functions would refuse', () => {
    const saved = environments.dev.webhooks;
    environments.dev.webhooks = { ...saved, HELPDESK_NEW_TICKET_WEBHOOK_URLS: 'http://169.254.169.254/x' };
    try {
      const app = new App({ context: { env: 'dev', 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
      expect(() => buildHelpdesk(app)).toThrow(/link-local or cloud metadata/);
    } finally {
      environments.dev.webhooks = saved;
    }
  });
});
