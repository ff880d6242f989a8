/** Template tests of the daily escalation (infra/escalation.ts): schedule, reserved concurrency, grants, alarm. */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiTemplateOf, actions, functionIn, roleStatements, type Resource } from './template';

function synth(env: string, context: Record<string, unknown> = {}): { api: Template; id: string; fn: Resource } {
  const api = apiTemplateOf(env, context);
  const [id, fn] = functionIn(api, 'EscalationEscalate');
  return { api, id, fn };
}

let dev: ReturnType<typeof synth>;
beforeAll(() => {
  dev = synth('dev');
});

describe('daily escalation', () => {
  it(
    "runs daily at the environment's hour in its time zone (EventBridge Scheduler), -c escalationHour and " +
      'escalationTimeZone',
    () => {
      const schedules = (api: Template, id: string) =>
        Object.values(api.findResources('AWS::Scheduler::Schedule') as Record<string, Resource>).filter((s) =>
          JSON.stringify(s.Properties.Target).includes(id),
        );
      expect(
        schedules(dev.api, dev.id).map((s) => [
          s.Properties.ScheduleExpression,
          s.Properties.ScheduleExpressionTimezone,
        ]),
      ).toEqual([['cron(0 6 * * ? *)', 'UTC']]);
      const berlin = synth('staging', { escalationHour: '7', escalationTimeZone: 'Europe/Berlin' });
      expect(
        schedules(berlin.api, berlin.id).map((s) => [
          s.Properties.ScheduleExpression,
          s.Properties.ScheduleExpressionTimezone,
        ]),
      ).toEqual([['cron(0 7 * * ? *)', 'Europe/Berlin']]);
      expect(berlin.fn.Properties.ReservedConcurrentExecutions).toBe(1);
      expect(dev.fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
      expect(() => synth('dev', { escalationTimeZone: 'Mars/Olympus' })).toThrow(
        /escalationTimeZone must be an IANA time zone/,
      );
    },
  );

  it('may read queues and exclusions, query gsi2, and write only tickets, followup refs, ids and day records', () => {
    const statements = roleStatements(dev.api, dev.id).filter((s) =>
      actions([s]).some((a) => a.startsWith('dynamodb:')),
    );
    const leading = statements.map((s) => [
      actions([s]).sort().join(' '),
      (s.Condition as Record<string, Record<string, string[]>> | undefined)?.['ForAllValues:StringLike']?.[
        'dynamodb:LeadingKeys'
      ],
    ]);
    expect(leading).toEqual(
      expect.arrayContaining([
        ['dynamodb:Query', ['QUEUES', 'ESCALATION_EXCLUSIONS']],
        ['dynamodb:UpdateItem', ['TICKET#*', 'COUNTER']],
        ['dynamodb:PutItem', ['TICKET#*', 'FOLLOWUP#*', 'ESCALATED#*']],
      ]),
    );
    expect(actions(statements).some((a) => /Delete|Scan|BatchWrite/.test(a))).toBe(false);
  });

  it("the schedule's role may only invoke the escalation function", () => {
    const roles = Object.entries(dev.api.findResources('AWS::IAM::Role') as Record<string, Resource>).filter(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'),
    );
    expect(roles).toHaveLength(1);
    const role = roles[0]![0];
    const statements = Object.values(dev.api.findResources('AWS::IAM::Policy') as Record<string, Resource>)
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
    expect(actions(statements)).toEqual(['lambda:InvokeFunction']);
    expect(JSON.stringify(statements.map((s) => s.Resource))).toContain(dev.id);
  });

  it('raises an alarm, on the alarm topic, when a run failed', () => {
    const alarms = Object.values(dev.api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).filter(
      (a) => a.Properties.MetricName === 'Errors' && JSON.stringify(a.Properties.Dimensions).includes(dev.id),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.Properties).toMatchObject({ EvaluationPeriods: 1, Threshold: 1 });
    expect(alarms[0]!.Properties.AlarmActions).toHaveLength(1);
  });
});
