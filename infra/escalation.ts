/**
 * The daily escalation on AWS (upstream's `escalate_tickets` cron job): a function that an
 * EventBridge Scheduler schedule runs once a day at the environment's hour in its time zone
 * (`escalation` in environments.ts; `-c escalationHour=7 -c escalationTimeZone=Europe/Berlin`),
 * with reserved concurrency 1 (staging, prod) so two runs never overlap. A run is idempotent: the same day never
 * escalates a ticket twice (store/escalation.ts, the day record), so the scheduler's retries are
 * harmless. It may touch only what ESCALATION_GRANTS names. An alarm tells when a run failed.
 */
import { Duration, Stack, TimeZone, Validations } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { ESCALATION_GRANTS } from '../shared/api/table-access';
import type { EnvironmentSettings } from './environments';
import { grantTable, helpdeskFunction } from './lambda';

export interface EscalationProps {
  settings: EnvironmentSettings;
  table: ITable;
}

export class Escalation extends Construct {
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: EscalationProps) {
    super(scope, id);
    const { settings, table } = props;
    const { hour, timeZone } = settings.escalation;
    const run = helpdeskFunction(this, 'Escalate', {
      handler: 'maintenance/escalate',
      description: "Escalates the tickets that waited their queue's escalate_days (once a day)",
      settings,
      environment: { TABLE_NAME: table.tableName, HELPDESK_ESCALATION_TIME_ZONE: timeZone },
      timeout: Duration.minutes(5),
      reservedConcurrency: settings.escalation.reservedConcurrency,
    });
    grantTable(run, table, ESCALATION_GRANTS);
    // The schedule's own role (else the target makes one at the stack's top), which may invoke only this function.
    const role = new Role(this, 'ScheduleRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'Runs the daily escalation',
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(run.node.defaultChild as CfnFunction)}.Arn>:*]`,
      reason:
        "lambda:InvokeFunction on the escalation function's versions and aliases (the scheduler target's grant): " +
        'this one function only.',
    });
    new Schedule(this, 'Daily', {
      description: `Escalates tickets daily at ${hour}:00 ${timeZone}`,
      schedule: ScheduleExpression.cron({ minute: '0', hour: String(hour), timeZone: TimeZone.of(timeZone) }),
      // Retried within the hour: a second run changes only what the first did not.
      target: new LambdaInvoke(run, { role, retryAttempts: 3, maxEventAge: Duration.hours(1) }),
    });
    this.alarm = new Alarm(this, 'FailingAlarm', {
      alarmDescription:
        `Helpdesk ${settings.name}: the daily escalation failed (run \`npm run helpdesk -- escalate ` +
        `--table ...\` once it ` +
        `is fixed; the same day ` +
        `never escalates twice)`,
      metric: run.metricErrors({ period: Duration.hours(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
