/**
 * Template tests of the observability resources: tracing and Powertools settings on every function,
 * the alarms, their topic, the 429 metric filter and the dashboard (infra/monitoring.ts).
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHelpdesk, type Helpdesk } from '../../infra/app';
import { ALARM_THRESHOLDS, THROTTLED_REQUESTS_METRIC } from '../../infra/monitoring';
import { fallbackRoute, routes } from '../../shared/api/routes';
import { METRICS, SERVICE_NAME } from '../../shared/observability';
import { apiTemplate, templateApp } from './template';
import type { Json } from '../json';

type Resource = { Type: string; Properties: Record<string, Json> };

function synth(env: string, context: Record<string, string> = {}): { helpdesk: Helpdesk; api: Template } {
  const app = templateApp(env, context);
  const helpdesk = buildHelpdesk(app);
  return { helpdesk, api: apiTemplate(helpdesk.api) };
}

function resources(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.findResources(type) as Record<string, Resource>);
}

describe('observability of the dev environment', () => {
  let helpdesk: Helpdesk;
  let api: Template;
  let topicId: string;
  const alarm = (suffix: string) => {
    const found = resources(api, 'AWS::CloudWatch::Alarm').filter(([id]) => id.startsWith(`Monitoring${suffix}`));
    expect(found, suffix).toHaveLength(1);
    return found[0]![1].Properties;
  };

  beforeAll(() => {
    ({ helpdesk, api } = synth('dev'));
    topicId = helpdesk.api.getLogicalId(helpdesk.api.monitoring.alarmTopic.node.defaultChild as never);
  });

  it('traces every function with X-Ray and names the service and environment for Powertools', () => {
    const functions = resources(api, 'AWS::Lambda::Function');
    // One per route and the fallback, the two webhook workers (infra/webhooks.ts), the file sweeper, the stream's
    // reader and its consumers' retry handler, and the escalation.
    expect(functions).toHaveLength(routes.length + 1 + 6);
    for (const [, fn] of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: 'DEBUG',
        HELPDESK_ENVIRONMENT: 'dev',
      });
      // Metrics and logs are never switched off or the event logged on AWS.
      expect(fn.Properties.Environment.Variables.POWERTOOLS_DEV).toBeUndefined();
      expect(fn.Properties.Environment.Variables.POWERTOOLS_LOGGER_LOG_EVENT).toBeUndefined();
    }
  });

  it('lets each role write trace segments, and nothing more on X-Ray', () => {
    for (const route of [...routes, fallbackRoute]) {
      const role = helpdesk.api.functions.get(route.handler)!.role!;
      const roleId = helpdesk.api.getLogicalId(role.node.defaultChild as never);
      const statements = resources(api, 'AWS::IAM::Policy')
        .filter(([, p]) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
        .flatMap(
          ([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
        );
      const xray = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('xray:')));
      expect(xray, route.handler).toHaveLength(1);
      expect([xray[0]!.Action].flat().sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
  });

  it('makes one TLS-only alarm topic, with no e-mail subscription unless an address is given', () => {
    api.resourceCountIs('AWS::SNS::Topic', 1);
    api.resourceCountIs('AWS::SNS::Subscription', 0);
    api.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('alarms on the 5xx rate, the p99 latency, Lambda throttles and 429s, each notifying the topic', () => {
    const alarms = resources(api, 'AWS::CloudWatch::Alarm');
    // Those four, the two webhook failure queues' (tests/infra/webhooks.test.ts) and the file
    // sweeper's (tests/infra/file-sweeper.test.ts), the stream reader's five (its failures, its iterator age, and
    // the dead letters of ticket state, change feed and time spent: tests/infra/stream-consumer.test.ts) and the
    // escalation's (tests/infra/escalation.test.ts), on the same topic.
    expect(alarms).toHaveLength(13);
    for (const [, a] of alarms) {
      expect(a.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(a.Properties.OKActions).toEqual([{ Ref: topicId }]);
      expect(a.Properties.TreatMissingData).toBe('notBreaching');
      expect(a.Properties.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    }
    const apiId = {
      Name: 'ApiId',
      Value: { Ref: helpdesk.api.getLogicalId(helpdesk.api.api.node.defaultChild as never) },
    };

    const rate = alarm('ServerErrorRate');
    expect(rate.Threshold).toBe(ALARM_THRESHOLDS.serverErrorRatePercent);
    expect(rate.EvaluationPeriods).toBe(2);
    const expression = (rate.Metrics as { Expression?: string }[]).find((m) => m.Expression)!.Expression;
    expect(expression).toBe('IF(requests >= 10, 100 * errors / requests, 0)');
    const named = Object.fromEntries(
      (
        rate.Metrics as {
          Id: string;
          MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: unknown[] }; Stat: string };
        }[]
      )
        .filter((m) => m.MetricStat)
        .map((m) => [m.Id, m.MetricStat!]),
    );
    expect(named.requests).toMatchObject({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: [apiId] },
      Stat: 'Sum',
    });
    expect(named.errors).toMatchObject({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5xx', Dimensions: [apiId] },
      Stat: 'Sum',
    });

    // A labelled metric is rendered in the `Metrics` form: one MetricStat.
    const single = (props: Record<string, Json>) => {
      expect(props.Metrics).toHaveLength(1);
      return props.Metrics[0].MetricStat as {
        Metric: { Namespace: string; MetricName: string; Dimensions?: unknown[] };
        Stat: string;
        Period: number;
      };
    };
    const latency = alarm('LatencyP99');
    expect(latency).toMatchObject({ Threshold: ALARM_THRESHOLDS.p99LatencyMs, EvaluationPeriods: 3 });
    expect(single(latency)).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Latency', Dimensions: [apiId] },
      Stat: 'p99',
      Period: 300,
    });
    const throttles = alarm('LambdaThrottles');
    expect(throttles).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(single(throttles)).toEqual({
      Metric: { Namespace: 'AWS/Lambda', MetricName: 'Throttles' },
      Stat: 'Sum',
      Period: 300,
    });
    const refused = alarm('ApiThrottledRequests');
    expect(refused).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(single(refused)).toEqual({
      Metric: {
        Namespace: METRICS.namespace,
        MetricName: THROTTLED_REQUESTS_METRIC,
        Dimensions: [{ Name: 'environment', Value: 'dev' }],
      },
      Stat: 'Sum',
      Period: 300,
    });
  });

  it('counts the 429s of the stage access log in a metric per environment', () => {
    const stage = resources(api, 'AWS::ApiGatewayV2::Stage')[0]![1];
    const accessLogId = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    api.hasResourceProperties('AWS::Logs::MetricFilter', {
      LogGroupName: { Ref: accessLogId },
      FilterPattern: '{ $.status = "429" }',
      MetricTransformations: [
        {
          MetricNamespace: METRICS.namespace,
          MetricName: THROTTLED_REQUESTS_METRIC,
          MetricValue: '1',
          Dimensions: [{ Key: 'environment', Value: '$.environment' }],
        },
      ],
    });
  });

  it('has a dashboard with the API, every operation (EMF) and every function', () => {
    const dashboards = resources(api, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]![1].Properties.DashboardName).toBe('Helpdesk-dev');
    const body = JSON.stringify(helpdesk.api.resolve(dashboards[0]![1].Properties.DashboardBody));
    for (const metric of [METRICS.requests, METRICS.serverErrors, METRICS.latency, 'ColdStart']) {
      expect(body).toContain(`MetricName=\\\\\\"${metric}\\\\\\"`);
    }
    expect(body).toContain('environment=\\\\\\"dev\\\\\\"');
    for (const route of [...routes, fallbackRoute]) expect(body).toContain(`\\"label\\":\\"${route.handler}\\"`);
    for (const name of ['ServerErrorRate', 'LatencyP99', 'LambdaThrottles', 'ApiThrottledRequests'])
      expect(body).toContain(`Monitoring${name}`);
  });

  it('sends an alarm added by another construct to the topic and lists it on the dashboard', () => {
    const app = templateApp();
    const other = buildHelpdesk(app);
    const extra = new Alarm(other.api, 'ExtraAlarm', {
      metric: new Metric({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' }),
      threshold: 1,
      evaluationPeriods: 1,
    });
    other.api.monitoring.addAlarm(extra);
    const template = apiTemplate(other.api);
    const topic = { Ref: other.api.getLogicalId(other.api.monitoring.alarmTopic.node.defaultChild as never) };
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      AlarmActions: [topic],
      OKActions: [topic],
    });
    const dashboard = resources(template, 'AWS::CloudWatch::Dashboard')[0]![1];
    expect(JSON.stringify(dashboard.Properties.DashboardBody)).toContain('ExtraAlarm');
  });
});

describe('observability of prod', () => {
  it('logs at INFO and subscribes the alarm e-mail given at deploy time', () => {
    const { api } = synth('prod', { alarmEmail: 'ops@example.com' });
    for (const [, fn] of resources(api, 'AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        POWERTOOLS_LOG_LEVEL: 'INFO',
        HELPDESK_ENVIRONMENT: 'prod',
      });
    }
    api.resourceCountIs('AWS::SNS::Subscription', 1);
    api.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    api.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'Helpdesk-prod' });
  });
});
