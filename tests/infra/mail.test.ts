/**
 * Template tests of mail on AWS (infra/mail.ts): with mail on, the SES identity (DKIM through the
 * hosted zone), the configuration set and its EventBridge destination, the rule to the recorder,
 * the consumer, queue, sender and their alarms, each function with least-privilege grants, and
 * cdk-nag clean; with mail off (the default), no SES resource at all.
 */
import type { PolicyViolation } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHelpdesk } from '../../infra/app';
import { withContextOverrides, environments } from '../../infra/environments';
import { MAIL_ATTEMPTS, SPARE_MAIL_RECEIVES } from '../../infra/mail';
import { SENDING_LEASE_MS } from '../../shared/store/mail-log';
import { addNagChecks } from '../../infra/nag';
import { apiTemplateOf, actions, functionIn, roleStatements, templateApp, type Resource } from './template';
import type { Json } from '../json';

const MAIL_ON = {
  mailFrom: 'Support <support@mail.example.com>',
  mailDomain: 'mail.example.com',
  mailHostedZoneId: 'Z0123456789ABC',
  mailHostedZoneName: 'example.com',
};

let api: Template;
beforeAll(() => {
  api = apiTemplateOf('dev', MAIL_ON);
});

const SES_TYPES = [
  'AWS::SES::EmailIdentity',
  'AWS::SES::ConfigurationSet',
  'AWS::SES::ConfigurationSetEventDestination',
];
const statementsOf = (prefix: string) => roleStatements(api, functionIn(api, prefix)[0]);
const resourcesOf = (statements: Record<string, Json>[]) => statements.flatMap((s) => [s.Resource].flat());

describe('mail on', () => {
  it(
    'the domain identity with Easy DKIM, its records in the hosted zone; a configuration set sending its events ' +
      'to the default bus',
    () => {
      api.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'mail.example.com' });
      const dkim = Object.values(api.findResources('AWS::Route53::RecordSet') as Record<string, Resource>);
      expect(dkim.map((r) => [r.Properties.Type, r.Properties.HostedZoneId])).toEqual(
        Array(3).fill(['CNAME', 'Z0123456789ABC']),
      ); // Easy DKIM's three
      api.resourceCountIs('AWS::SES::ConfigurationSet', 1);
      api.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
        EventDestination: {
          Enabled: true,
          MatchingEventTypes: Match.arrayEquals(['bounce', 'complaint', 'delivery', 'reject']),
          EventBridgeDestination: { EventBusArn: Match.anyValue() },
        },
      });
      expect(JSON.stringify(api.findResources('AWS::SES::ConfigurationSetEventDestination'))).toContain(
        ':event-bus/default',
      );
    },
  );

  it(
    "a rule passes the configuration set's bounce, complaint, delivery and reject events to the recorder, with " +
      'retries and a failure queue',
    () => {
      const [recorder] = functionIn(api, 'MailRecordMailEvent');
      const rules = Object.values(api.findResources('AWS::Events::Rule') as Record<string, Resource>).filter((r) =>
        JSON.stringify(r.Properties.Targets).includes(recorder),
      );
      expect(rules).toHaveLength(1);
      const rule = rules[0]!.Properties;
      expect(rule.EventPattern).toMatchObject({
        source: ['aws.ses'],
        'detail-type': ['Email Bounced', 'Email Complaint Received', 'Email Delivered', 'Email Rejected'],
      });
      expect(JSON.stringify(rule.EventPattern.detail)).toContain('ses:configuration-set');
      expect(rule.Targets[0].DeadLetterConfig).toBeDefined();
      expect(rule.Targets[0].RetryPolicy).toMatchObject({ MaximumRetryAttempts: 8 });
    },
  );

  it(
    'the sender may send only as the identity and through the configuration set; it reads attachments and the ' +
      'secret, nothing more of S3',
    () => {
      const statements = statementsOf('MailSendMail');
      const ses = statements.filter((s) => actions([s]).some((a) => a.startsWith('ses:')));
      expect(ses).toHaveLength(1);
      expect(actions(ses).sort()).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
      const targets = JSON.stringify(ses[0]!.Resource);
      expect(targets).toContain(':identity/');
      expect(targets).toContain(':configuration-set/');
      expect(targets).not.toContain('"*"');
      expect(actions(statements).filter((a) => a.startsWith('s3:'))).toEqual(['s3:GetObject']);
      expect(actions(statements)).toEqual(
        expect.arrayContaining(['secretsmanager:GetSecretValue', 'sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility']),
      );
      expect(actions(statements).filter((a) => a.startsWith('dynamodb:Scan') || a === 'dynamodb:*')).toEqual([]);
    },
  );

  it(
    'the recorder may read Message-IDs, update the mail log and write the suppression ' + 'list, and do nothing else',
    () => {
      const statements = statementsOf('MailRecordMailEvent').filter((s) =>
        actions([s]).some((a) => a.startsWith('dynamodb:')),
      );
      const granted = statements.map((s) => ({
        actions: actions([s]),
        keys: s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'],
      }));
      expect(granted).toEqual([
        { actions: ['dynamodb:GetItem'], keys: ['MESSAGE_ID#*'] },
        { actions: ['dynamodb:UpdateItem'], keys: ['MAIL#*'] },
        { actions: ['dynamodb:PutItem'], keys: ['SUPPRESSED'] },
      ]);
      expect(
        actions(statementsOf('MailRecordMailEvent')).filter(
          (a) => a.startsWith('ses:') || a.startsWith('s3:') || a.startsWith('sqs:'),
        ),
      ).toEqual([]);
      expect(resourcesOf(statements).every((r) => !JSON.stringify(r).includes('index'))).toBe(true);
    },
  );

  it(
    "mail's consumer runs in the table stream's one reader, which may queue mail; the queue dead-letters after " +
      'the attempts and spares',
    () => {
      expect(() => functionIn(api, 'MailQueueMail')).toThrow(/no function/);
      const reader = statementsOf('TicketCountsCountTickets');
      const sends = reader.filter((s) => actions([s]).includes('sqs:SendMessage')).flatMap((s) => [s.Resource].flat());
      expect(JSON.stringify(sends)).toContain('MailMailQueue');
      expect(actions(reader).filter((a) => a.startsWith('ses:') || a.startsWith('s3:'))).toEqual([]);
      const queues = Object.values(api.findResources('AWS::SQS::Queue') as Record<string, Resource>).filter(
        (q) => q.Properties.RedrivePolicy,
      );
      expect(queues.map((q) => q.Properties.RedrivePolicy.maxReceiveCount)).toContain(
        MAIL_ATTEMPTS + SPARE_MAIL_RECEIVES,
      );
    },
  );

  it("a message whose sender died comes back only after the mail's claim has lapsed, so that it is sent", () => {
    // The sender claims a mail for SENDING_LEASE_MS (store/mail-log.ts); a message shown again before that finds the
    // claim held, is taken as done, and the mail stays `sending` for good.
    const [, fn] = functionIn(api, 'MailSendMail');
    const mailQueue = Object.entries(api.findResources('AWS::SQS::Queue') as Record<string, Resource>).find(
      ([id, q]) => id.startsWith('MailMailQueue') && q.Properties.RedrivePolicy,
    )![1];
    expect(mailQueue.Properties.VisibilityTimeout * 1000).toBeGreaterThan(SENDING_LEASE_MS);
    // And a sender never outlives its message's hiding (a second sender would claim it meanwhile).
    expect(fn.Properties.Timeout).toBeLessThan(mailQueue.Properties.VisibilityTimeout);
  });

  it('the sender puts a mail that failed on every attempt on the dead-letter queue, which alarms', () => {
    const [sender, fn] = functionIn(api, 'MailSendMail');
    const mailQueue = Object.entries(api.findResources('AWS::SQS::Queue') as Record<string, Resource>).find(
      ([id, q]) => id.startsWith('MailMailQueue') && q.Properties.RedrivePolicy,
    )![1];
    const deadLetter = mailQueue.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
    expect(fn.Properties.Environment.Variables.HELPDESK_MAIL_DEAD_LETTER_URL).toEqual({ Ref: deadLetter });
    const sends = roleStatements(api, sender).filter((s) => actions([s]).includes('sqs:SendMessage'));
    expect(sends.flatMap((s) => [s.Resource].flat())).toContainEqual({ 'Fn::GetAtt': [deadLetter, 'Arn'] });
    const alarm = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).find((a) =>
      String(a.Properties.AlarmDescription).includes('mails could not be sent'),
    )!;
    expect(JSON.stringify(alarm.Properties.Dimensions)).toContain(deadLetter);
    expect(alarm.Properties).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('each failure queue has an alarm on its first message', () => {
    const alarms = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).map((a) =>
      String(a.Properties.AlarmDescription),
    );
    for (const what of [
      'mails could not be sent',
      'could not be turned into mails',
      'SES events (bounces, complaints) could not be recorded',
    ]) {
      expect(
        alarms.some((d) => d.includes(what)),
        what,
      ).toBe(true);
    }
  });

  it('cdk-nag leaves no unacknowledged finding', () => {
    const app = templateApp('prod', MAIL_ON);
    buildHelpdesk(app);
    const checks = addNagChecks(app);
    app.synth();
    const report = checks.validateScope(app);
    const findings = report.violations.flatMap((v: PolicyViolation) =>
      v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`),
    );
    expect(findings).toEqual([]);
  });
});

describe('mail off', () => {
  it('is the default of every environment: no SES resource, no mail function', () => {
    for (const env of Object.keys(environments)) {
      const template = apiTemplateOf(env);
      for (const type of SES_TYPES) template.resourceCountIs(type, 0);
      const ids = Object.keys(template.findResources('AWS::Lambda::Function'));
      expect(ids.filter((id) => /^Mail(QueueMail|SendMail|RecordMailEvent)/.test(id))).toEqual([]);
      expect(ids.some((id) => id.startsWith('WebhooksDispatch'))).toBe(true); // the check looks at the right names
    }
  });

  it('-c mail=off turns it off; a sender address alone makes an email identity (no DNS)', () => {
    const off = apiTemplateOf('dev', { ...MAIL_ON, mail: 'off' });
    for (const type of SES_TYPES) off.resourceCountIs(type, 0);
    const address = apiTemplateOf('dev', { mailFrom: 'help@example.org' });
    address.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'help@example.org' });
    address.resourceCountIs('AWS::Route53::RecordSet', 0);
  });

  it('bad mail settings fail the synth saying what is wrong', () => {
    const settings = (context: Record<string, string>) => () =>
      withContextOverrides(environments.dev, (key) => context[key]);
    expect(settings({ mailDomain: 'example.com' })).toThrow(/needs a sender/);
    expect(settings({ mailFrom: 'not an address' })).toThrow(/must be "Name <address>" or an address/);
    expect(settings({ mailFrom: 'a@other.org', mailDomain: 'example.com' })).toThrow(/is not at the sending domain/);
    expect(settings({ mailFrom: 'a@example.com', mailDomain: 'example.com', mailHostedZoneId: 'Z1' })).toThrow(
      /both its id and its name/,
    );
    expect(settings({ mailFrom: 'Evil\r\nBcc: x <a@example.com>' })).toThrow(/must be "Name <address>"/);
    expect(settings({ mail: 'maybe' })).toThrow(/-c mail=on or -c mail=off/);
  });
});
