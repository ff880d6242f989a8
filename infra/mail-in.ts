/**
 * Mail in on AWS (docs/email.md, "Email in"; docs/operations.md, "Receiving mail"): an SES receipt
 * rule set for the environment's addresses or domains, whose rule scans the message (spam, virus),
 * stores it raw in an encrypted bucket of its own (`inbound/<SES message id>`, expired after
 * MAIL_RETENTION), then invokes the ingest function with SES's verdicts. The CDK creates a rule set
 * but does not make it the account's active one: a custom resource calls SetActiveReceiptRuleSet
 * (and, when the stack lets go of it, deactivates it). Only in regions where SES receives mail.
 *
 * The ingest may read only the raw messages, write only attachment objects (and delete its own
 * abandoned uploads), and on the table only what MAIL_IN_GRANTS names. Alarms: any message kept as
 * a problem (failed or held), and the function failing (then SES's retries are running out).
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Bucket, CfnBucket, IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { ReceiptRuleSet, TlsPolicy } from 'aws-cdk-lib/aws-ses';
import { Lambda as LambdaAction, LambdaInvocationType, S3 as S3Action } from 'aws-cdk-lib/aws-ses-actions';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { MAIL_IN_GRANTS } from '../shared/api/table-access';
import { ATTACHMENT_PREFIX, INBOUND_MAIL_PREFIX } from '../shared/store/keys';
import type { EnvironmentSettings, MailInSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import { nagImportedArn } from './nag';
import { mailProblemsAlarm, receivedMailBucket } from './mail-in-storage';

export interface MailInProps {
  settings: EnvironmentSettings;
  mailIn: MailInSettings;
  table: ITable;
  /** The attachments bucket (the data stack's). */
  bucket: IBucket;
  /** Mail out's threading secret, when mail out is on: replies' Reply-To tags verify with it. */
  mailSecret?: ISecret;
}

export class MailIn extends Construct {
  readonly bucket: Bucket;
  readonly ruleSet: ReceiptRuleSet;
  readonly alarms: Alarm[];
  /** The ingest's mail settings (its domain and sender), which the mail release function runs with too. */
  readonly ingestEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: MailInProps) {
    super(scope, id);
    const { settings, mailIn, table, bucket } = props;
    const stack = Stack.of(this);

    this.bucket = receivedMailBucket(this, 'Messages', settings, 'SES');
    this.ingestEnvironment = {
      HELPDESK_MAIL_DOMAIN: mailIn.domain,
      ...(mailIn.from ? { HELPDESK_MAIL_FROM: mailIn.from } : {}),
    };

    const ingest = helpdeskFunction(this, 'Ingest', {
      handler: 'mail-in/ingest',
      description: 'Turns received mail into tickets and followups',
      settings,
      environment: {
        TABLE_NAME: table.tableName,
        BUCKET_NAME: bucket.bucketName,
        HELPDESK_MAIL_BUCKET: this.bucket.bucketName,
        ...this.ingestEnvironment,
        ...(props.mailSecret ? { HELPDESK_MAIL_SECRET_ARN: props.mailSecret.secretArn } : {}),
      },
      // A 40 MB message with its attachments: read, parsed, uploaded.
      timeout: Duration.minutes(2),
    });
    grantTable(ingest, table, MAIL_IN_GRANTS);
    props.mailSecret?.grantRead(ingest);
    this.bucket.grantRead(ingest, `${INBOUND_MAIL_PREFIX}*`);
    ingest.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [bucket.arnForObjects(`${ATTACHMENT_PREFIX}*`)],
      }),
    );
    Validations.of(ingest.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagImportedArn(bucket, bucket.bucketArn, stack)}/${ATTACHMENT_PREFIX}*]`,
      reason:
        'Writes attachment objects under keys made at run time (attachments/<ticket>/<uuid>), and deletes only ' +
        'its own abandoned uploads.',
    });
    Validations.of(ingest.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Action::s3:GetObject*]',
      reason:
        'grantRead of the received messages only (inbound/*): SES names each object by its message id at run time.',
    });
    Validations.of(ingest.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Action::s3:GetBucket*]',
      reason: 'grantRead of the mail bucket (its own), as CDK writes it.',
    });
    Validations.of(ingest.role!).acknowledge({
      id: 'AwsSolutions-IAM5[Action::s3:List*]',
      reason: 'grantRead of the mail bucket (its own), as CDK writes it.',
    });
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    Validations.of(ingest.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${INBOUND_MAIL_PREFIX}*]`,
      reason: 'The received messages, named by SES at run time.',
    });

    this.ruleSet = new ReceiptRuleSet(this, 'RuleSet', {
      receiptRuleSetName: `helpdesk-${settings.name}`,
      rules: [
        {
          recipients: [...mailIn.recipients],
          scanEnabled: true,
          tlsPolicy: TlsPolicy.REQUIRE,
          actions: [
            new S3Action({ bucket: this.bucket, objectKeyPrefix: INBOUND_MAIL_PREFIX }),
            new LambdaAction({ function: ingest, invocationType: LambdaInvocationType.EVENT }),
          ],
        },
      ],
    });

    // SES has one active rule set per account and region: the stack makes its own the active one.
    const activate = (name?: string) => ({
      service: 'SES',
      action: 'setActiveReceiptRuleSet',
      parameters: name ? { RuleSetName: name } : {},
      physicalResourceId: PhysicalResourceId.of(`active-${settings.name}`),
    });
    const activation = new AwsCustomResource(this, 'Activate', {
      onCreate: activate(this.ruleSet.receiptRuleSetName),
      onUpdate: activate(this.ruleSet.receiptRuleSetName),
      onDelete: activate(),
      policy: AwsCustomResourcePolicy.fromStatements([
        new PolicyStatement({ actions: ['ses:SetActiveReceiptRuleSet'], resources: ['*'] }),
      ]),
      installLatestAwsSdk: false,
    });
    activation.node.addDependency(this.ruleSet);
    Validations.of(activation).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ses:SetActiveReceiptRuleSet supports no resource-level permissions.',
    });
    Validations.of(stack).acknowledge({
      id: 'AwsSolutions-L1',
      reason: "The custom resource's provider function (AwsCustomResource) runs on the runtime CDK chooses for it.",
    });
    Validations.of(stack).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "The custom resource's provider function (AwsCustomResource) logs with AWS's basic execution role.",
    });

    this.alarms = [
      mailProblemsAlarm(this, 'ProblemsAlarm', settings),
      new Alarm(this, 'FailingAlarm', {
        alarmDescription:
          `Helpdesk ${settings.name}: the mail ingest is failing (SES retries the invocation, then ` + `gives up)`,
        metric: ingest.metricErrors({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ];
  }
}
