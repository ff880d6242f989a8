/** Template tests of the file sweeper (infra/file-sweeper.ts): schedule, least-privilege grants, alarm. */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiTemplateOf, actions, functionIn, roleStatements, type Resource } from './template';

let api: Template;
let sweeperId: string;

beforeAll(() => {
  api = apiTemplateOf();
  [sweeperId] = functionIn(api, 'FileSweeperSweepFiles');
});

describe('file sweeper', () => {
  it('runs every 5 minutes on a schedule', () => {
    const rules = Object.values(api.findResources('AWS::Events::Rule') as Record<string, Resource>).filter((r) =>
      JSON.stringify(r.Properties.Targets).includes(sweeperId),
    );
    expect(rules.map((r) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
  });

  it('may query and change only the cleanup records, and only delete attachment objects', () => {
    const statements = roleStatements(api, sweeperId).filter(
      (s) => !actions([s]).some((a) => a.startsWith('logs:') || a.startsWith('xray:')),
    );
    const table = statements.filter((s) => actions([s]).some((a) => a.startsWith('dynamodb:')));
    expect(table).toHaveLength(1);
    expect(actions(table).sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(table[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FILE_CLEANUPS'] } });
    const files = statements.filter((s) => actions([s]).some((a) => a.startsWith('s3:')));
    expect(actions(files)).toEqual(['s3:DeleteObject']);
    expect(JSON.stringify(files[0]!.Resource)).toMatch(/\/attachments\/\*"\]\]\}$/);
    expect(statements.length).toBe(table.length + files.length);
  });

  it('raises an alarm, on the alarm topic, when its runs keep failing', () => {
    const alarms = Object.values(api.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).filter(
      (a) => a.Properties.MetricName === 'Errors' && JSON.stringify(a.Properties.Dimensions).includes(sweeperId),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.Properties).toMatchObject({ EvaluationPeriods: 3, Threshold: 1, Period: 300 });
    expect(alarms[0]!.Properties.AlarmActions).toHaveLength(1);
  });
});
