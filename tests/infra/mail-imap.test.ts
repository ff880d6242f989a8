/**
 * Template tests of mail in from an IMAP mailbox on AWS (infra/mail-imap.ts): off by default; with
 * it on, a function run every minute, never two at once, a late run dropped; its least-privilege
 * grants (the password secret, its own bucket's received messages, attachments, the table as
 * MAIL_IN_GRANTS); the alarms; settings checked at synth; and cdk-nag clean.
 */
import type { Template } from 'aws-cdk-lib/assertions';
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

const PASSWORD_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:helpdesk/imap-password-AbC123';
const ON = { mailImapUrl: 'imaps://support%40example.com@imap.gmail.com/INBOX', mailImapPasswordArn: PASSWORD_ARN };

const imapApi = (context: Record<string, unknown> = ON): Template => apiTemplateOf('dev', context);
const resources = (t: Template, type: string) => Object.entries(t.findResources(type) as Record<string, Resource>);

describe('mail in from an IMAP mailbox on AWS', () => {
  it('is off unless an environment names a mailbox', () => {
    for (const env of ['dev', 'staging', 'prod']) {
      const api = apiTemplateOf(env);
      expect(resources(api, 'AWS::Lambda::Function').filter(([id]) => id.startsWith('MailImap'))).toEqual([]);
    }
  });

  it('runs the poller every minute, one run at a time, dropping a run that could not start', () => {
    const api = imapApi();
    const [pollId, poll] = functionIn(api, 'MailImapPoll');
    expect(poll.Properties.ReservedConcurrentExecutions).toBe(1);
    expect(poll.Properties.Environment.Variables).toMatchObject({
      HELPDESK_IMAP_URL: ON.mailImapUrl,
      HELPDESK_IMAP_PASSWORD_ARN: PASSWORD_ARN,
      HELPDESK_MAIL_DOMAIN: 'example.com',
    });
    const rules = resources(api, 'AWS::Events::Rule').filter(([, r]) =>
      JSON.stringify(r.Properties.Targets).includes(pollId),
    );
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(1 minute)']);
    const invoke = resources(api, 'AWS::Lambda::EventInvokeConfig').map(([, r]) => r.Properties);
    expect(invoke).toEqual([expect.objectContaining({ MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 })]);
  });

  it('may read the password secret, write received messages and attachments, and the table as the ingest', () => {
    const api = imapApi();
    const [pollId] = functionIn(api, 'MailImapPoll');
    const statements = roleStatements(api, pollId).filter(
      (s) => !actions([s]).some((a) => a.startsWith('logs:') || a.startsWith('xray:')),
    );
    const table = statements.filter((s) => actions([s]).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(MAIL_IN_GRANTS.length);
    const secrets = statements.filter((s) => actions([s]).some((a) => a.startsWith('secretsmanager:')));
    expect(actions(secrets).sort()).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
    expect(secrets.map((s) => s.Resource)).toEqual([PASSWORD_ARN]);
    const files = statements.filter((s) => actions([s]).some((a) => a.startsWith('s3:')));
    expect(
      files.map((s) => [
        actions([s]).sort().join(','),
        JSON.stringify(s.Resource).match(/\/(inbound\/imap|attachments)\/\*/)?.[1],
      ]),
    ).toEqual([
      ['s3:PutObject', 'inbound/imap'],
      ['s3:DeleteObject,s3:PutObject', 'attachments'],
    ]);
    const bucket = resources(api, 'AWS::S3::Bucket').find(([id]) => id.startsWith('MailImapMessages'));
    expect(bucket?.[1].Properties.LifecycleConfiguration.Rules[0]).toMatchObject({
      Prefix: 'inbound/',
      ExpirationInDays: 90,
    });
    expect(statements.length).toBe(table.length + secrets.length + files.length);
  });

  it('verifies replies with the mail secret when mail out is on', () => {
    const api = imapApi({ ...ON, mailFrom: 'Support <support@example.com>' });
    const [pollId, poll] = functionIn(api, 'MailImapPoll');
    expect(Object.keys(poll.Properties.Environment.Variables)).toContain('HELPDESK_MAIL_SECRET_ARN');
    const reads = roleStatements(api, pollId).filter((s) => actions([s]).includes('secretsmanager:GetSecretValue'));
    expect(JSON.stringify(reads)).toContain('MailSecret');
  });

  it('alarms on mail kept for operators (once, with SES on too) and on three failed runs in a row', () => {
    const api = imapApi();
    const [pollId] = functionIn(api, 'MailImapPoll');
    const alarms = resources(api, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(alarms.filter((a) => a.MetricName === 'MailInProblems')).toHaveLength(1);
    expect(alarms.filter((a) => a.MetricName === 'Errors' && JSON.stringify(a.Dimensions).includes(pollId))).toEqual([
      expect.objectContaining({ EvaluationPeriods: 3, Period: 60 }),
    ]);
    const both = imapApi({ ...ON, mailInRecipients: 'support@example.com' });
    expect(
      resources(both, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties.MetricName === 'MailInProblems'),
    ).toHaveLength(1);
  });

  it.each([
    [{ mailImapUrl: ON.mailImapUrl }, /needs both its URL and its password secret/],
    [{ ...ON, mailImapUrl: 'imap://support%40example.com@imap.gmail.com/INBOX' }, /plain text/],
    [{ ...ON, mailImapPasswordArn: 'helpdesk/imap-password' }, /full ARN/],
  ])('refuses %j at synth, saying why', (context, reason) => {
    expect(() => buildHelpdesk(templateApp('dev', context))).toThrow(reason);
  });

  it.each(['dev', 'prod'])('leaves no unacknowledged cdk-nag finding in %s', (env) => {
    expect(nagFindings(env, ON)).toEqual([]);
  });
});
