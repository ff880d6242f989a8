/**
 * The file sweeper on AWS: a function that an EventBridge schedule runs every few minutes to finish
 * the cleanup records (shared/store/file-cleanups.ts), so that no attachment object is left without
 * its record, whatever failed or crashed. It may read and change only the cleanup records, and only
 * delete attachment objects. An alarm tells when its runs keep failing.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ATTACHMENT_PREFIX, PARTITIONS } from '../shared/store/keys';
import type { EnvironmentSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';
import { on } from '../shared/api/table-access';
import { nagImportedArn } from './nag';

/** How often the sweeper runs: cleanup records of deletes are due at once, abandoned uploads after 10 minutes. */
export const FILE_SWEEP_RATE = Duration.minutes(5);

export interface FileSweeperProps {
  settings: EnvironmentSettings;
  table: ITable;
  bucket: IBucket;
}

export class FileSweeper extends Construct {
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: FileSweeperProps) {
    super(scope, id);
    const { settings, table, bucket } = props;
    const sweep = helpdeskFunction(this, 'SweepFiles', {
      handler: 'maintenance/sweep-files',
      description: 'Deletes attachment files that no record points at (cleanup records due)',
      settings,
      environment: { TABLE_NAME: table.tableName, BUCKET_NAME: bucket.bucketName },
      timeout: Duration.minutes(2),
    });
    grantTable(sweep, table, [on(['Query', 'UpdateItem', 'DeleteItem'], PARTITIONS.fileCleanups)]);
    sweep.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [bucket.arnForObjects(`${ATTACHMENT_PREFIX}*`)] }),
    );
    const bucketArn = nagImportedArn(bucket, bucket.bucketArn, Stack.of(this));
    Validations.of(sweep.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${bucketArn}/${ATTACHMENT_PREFIX}*]`,
      reason:
        'Deletes only attachment objects, and only the ones named by cleanup records, whose keys ' +
        '(attachments/<ticket>/<uuid>) are made at run time.',
    });
    new Rule(this, 'Schedule', {
      description: 'Runs the file sweeper',
      schedule: Schedule.rate(FILE_SWEEP_RATE),
      targets: [new LambdaFunction(sweep)],
    });

    this.alarm = new Alarm(this, 'FailingAlarm', {
      alarmDescription:
        `Helpdesk ${settings.name}: the file sweeper failed on three runs in a row (files that ` +
        `no record points at are ` +
        `piling up)`,
      metric: sweep.metricErrors({ period: FILE_SWEEP_RATE }),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
