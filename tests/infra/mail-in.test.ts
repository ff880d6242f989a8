/**
 * Template tests of mail in on AWS (infra/mail-in.ts): off by default; with it on, the receipt rule
 * set and its activation, the encrypted bucket with its lifecycle, the ingest function and its
 * least-privilege grants, the alarms; and cdk-nag clean.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildHelpdesk } from '../../infra/app';
import { MAIL_IN_GRANTS } from '../../shared/api/table-access';
import {
  apiTemplateOf,
  actions,
  functionIn,
  nagFindings,
  roleStatements,
  templateApp,
  type Resource,
} from './template';

const ON = { mailInRecipients: 'support@example.org,example.net' };
const MAIL_OUT_ON = { mailFrom: 'Support <support@example.org>', mailDomain: 'example.org' };

function mailInApi(env = 'dev'): Template {
  return apiTemplateOf(env, ON);
}

describe('mail in on AWS', () => {
  it('is off unless an environment names its recipients', () => {
    for (const env of ['dev', 'staging', 'prod']) {
      const api = apiTemplateOf(env);
      expect(Object.keys(api.findResources('AWS::SES::ReceiptRuleSet'))).toEqual([]);
    }
  });

  it(
    'has a rule set whose rule scans, stores the message raw, then runs the ingest, and a custom resource that ' +
      'activates it',
    () => {
      const api = mailInApi();
      const [ingestId] = functionIn(api, 'MailInIngest');
      api.resourceCountIs('AWS::SES::ReceiptRuleSet', 1);
      const rule = Object.values(api.findResources('AWS::SES::ReceiptRule') as Record<string, Resource>)[0]!.Properties
        .Rule;
      expect(rule).toMatchObject({
        Enabled: true,
        ScanEnabled: true,
        TlsPolicy: 'Require',
        Recipients: ['support@example.org', 'example.net'],
      });
      expect(rule.Actions.map((a: Record<string, unknown>) => Object.keys(a)[0])).toEqual(['S3Action', 'LambdaAction']);
      expect(rule.Actions[0].S3Action.ObjectKeyPrefix).toBe('inbound/');
      expect(JSON.stringify(rule.Actions[1].LambdaAction.FunctionArn)).toContain(ingestId);
      const activation = Object.values(api.findResources('Custom::AWS') as Record<string, Resource>);
      expect(activation).toHaveLength(1);
      expect(JSON.stringify(activation[0]!.Properties.Create)).toContain('setActiveReceiptRuleSet');
      expect(JSON.stringify(activation[0]!.Properties.Delete)).toContain('setActiveReceiptRuleSet');
    },
  );

  it('keeps messages in a private, encrypted bucket that expires them', () => {
    const api = mailInApi();
    const buckets = Object.entries(api.findResources('AWS::S3::Bucket') as Record<string, Resource>).filter(([id]) =>
      id.startsWith('MailInMessages'),
    );
    expect(buckets).toHaveLength(1);
    const props = buckets[0]![1].Properties;
    expect(props.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe(
      'AES256',
    );
    expect(props.PublicAccessBlockConfiguration).toMatchObject({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props.LifecycleConfiguration.Rules[0]).toMatchObject({
      Prefix: 'inbound/',
      ExpirationInDays: 90,
      Status: 'Enabled',
    });
  });

  it('gives the ingest its table grants, read of the messages and write of attachments only', () => {
    const api = mailInApi();
    const [ingestId] = functionIn(api, 'MailInIngest');
    const statements = roleStatements(api, ingestId).filter(
      (s) => !actions([s]).some((a) => a.startsWith('logs:') || a.startsWith('xray:')),
    );
    const table = statements.filter((s) => actions([s]).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(MAIL_IN_GRANTS.length);
    for (const s of table)
      expect(s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'].length).toBeGreaterThan(0);
    const files = statements.filter((s) => actions([s]).some((a) => a.startsWith('s3:')));
    const writes = files.filter((s) => actions([s]).includes('s3:PutObject'));
    expect(actions(writes).sort()).toEqual(['s3:DeleteObject', 's3:PutObject']);
    expect(JSON.stringify(writes[0]!.Resource)).toMatch(/\/attachments\/\*"\]\]\}$/);
    const reads = files.filter((s) => !writes.includes(s));
    expect(actions(reads).every((a) => a.startsWith('s3:Get') || a.startsWith('s3:List'))).toBe(true);
    expect(JSON.stringify(reads)).toContain('/inbound/*');
    expect(statements.length).toBe(table.length + files.length);
  });

  it('alarms on mail kept for operators and on a failing ingest', () => {
    const api = mailInApi();
    const alarms = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>);
    expect(alarms.filter((a) => a.Properties.MetricName === 'MailInProblems')).toHaveLength(1);
    const [ingestId] = functionIn(api, 'MailInIngest');
    expect(
      alarms.filter(
        (a) => a.Properties.MetricName === 'Errors' && JSON.stringify(a.Properties.Dimensions).includes(ingestId),
      ),
    ).toHaveLength(1);
  });

  it(
    "with mail out on, the ingest may read mail out's threading secret, named by its ARN, and nothing else of " +
      'Secrets Manager',
    () => {
      const api = apiTemplateOf('dev', { ...ON, ...MAIL_OUT_ON });
      const [ingestId, ingest] = functionIn(api, 'MailInIngest');
      const [secretId] = Object.keys(api.findResources('AWS::SecretsManager::Secret')).filter((id) =>
        id.startsWith('MailMailSecret'),
      );
      expect(secretId).toBeDefined();
      expect(ingest.Properties.Environment.Variables.HELPDESK_MAIL_SECRET_ARN).toEqual({ Ref: secretId });
      const reads = roleStatements(api, ingestId).filter((s) =>
        actions([s]).some((a) => a.startsWith('secretsmanager:')),
      );
      expect(reads.flatMap((s) => [s.Resource].flat())).toEqual([{ Ref: secretId }]);
      // Without mail out there are no tags to verify, and no secret.
      const [, alone] = functionIn(mailInApi(), 'MailInIngest');
      expect(alone.Properties.Environment.Variables.HELPDESK_MAIL_SECRET_ARN).toBeUndefined();
    },
  );

  it(
    'has a mail release function with the ingest grants and read of the messages, which the release route alone ' +
      'may invoke',
    () => {
      const api = mailInApi();
      const [releaseId, release] = functionIn(api, 'MailRelease');
      const statements = roleStatements(api, releaseId).filter(
        (s) => !actions([s]).some((a) => a.startsWith('logs:') || a.startsWith('xray:')),
      );
      const table = statements.filter((s) => actions([s]).some((a) => a.startsWith('dynamodb:')));
      expect(table).toHaveLength(MAIL_IN_GRANTS.length);
      const files = statements.filter((s) => actions([s]).some((a) => a.startsWith('s3:')));
      expect(actions(files).sort()).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:PutObject']);
      expect(JSON.stringify(files.find((s) => actions([s]).includes('s3:GetObject'))!.Resource)).toContain(
        '/inbound/*',
      );
      expect(statements.length).toBe(table.length + files.length);
      expect(release.Properties.Environment.Variables.HELPDESK_MAIL_DOMAIN).toBeDefined();
      // Invoking it: the release route's function, told its name; no other role may.
      const invokers = Object.entries(api.findResources('AWS::IAM::Policy') as Record<string, Resource>).filter(
        ([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes(releaseId),
      );
      expect(invokers.map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['MailProblemsReleaseRoleDefaultPolicy']);
      const granted = invokers[0]![1].Properties.PolicyDocument.Statement as Record<string, unknown>[];
      expect(granted.filter((s) => JSON.stringify(s).includes(releaseId))).toEqual([
        { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: { 'Fn::GetAtt': [releaseId, 'Arn'] } },
      ]);
      const [routeId, route] = functionIn(api, 'MailProblemsRelease');
      expect(JSON.stringify(route.Properties.Environment.Variables.HELPDESK_MAIL_RELEASE_FUNCTION)).toContain(
        releaseId,
      );
      expect(JSON.stringify(roleStatements(api, routeId))).toContain('lambda:InvokeFunction');
      // Without mail in, no release function, and the route is not told of one (it answers 409).
      const none = apiTemplateOf('dev');
      expect(() => functionIn(none, 'MailRelease')).toThrow();
      expect(functionIn(none, 'MailProblemsRelease')[1].Properties.Environment.Variables).not.toHaveProperty(
        'HELPDESK_MAIL_RELEASE_FUNCTION',
      );
    },
  );

  it('refuses recipients that are neither addresses nor domains', () => {
    expect(() => buildHelpdesk(templateApp('dev', { mailInRecipients: 'not an address' }))).toThrow(/mailInRecipients/);
  });

  it.each([
    ['dev', ON],
    ['prod', ON],
    ['prod with mail out', { ...ON, ...MAIL_OUT_ON }],
  ])('leaves no unacknowledged cdk-nag finding in %s', (env, context) => {
    expect(nagFindings(env.split(' ')[0]!, context)).toEqual([]);
  });
});
