/**
 * What an operator watches, per environment: a CloudWatch dashboard of the API and of each
 * operation, alarms on the API's 5xx rate, its p99 latency and throttling, and an SNS topic that
 * every alarm notifies (with an e-mail subscription when the environment names an address).
 * Other constructs add their own alarms to the same topic with `addAlarm`.
 *
 * Sources: API Gateway's HTTP API metrics (per API), the functions' EMF metrics (per operation,
 * shared/observability.ts), Lambda's throttles, and a metric filter on the stage's access log for
 * the requests the stage throttle refused (429; HTTP APIs publish no metric of their own for them).
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmBase,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { METRICS, SERVICE_NAME } from '../shared/observability';
import type { EnvironmentSettings } from './environments';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';

/** An alarm on a failure queue's first message (a dead-letter queue's: each is watched so). */
export function firstMessageAlarm(scope: Construct, id: string, environment: string, queue: IQueue, what: string) {
  return new Alarm(scope, id, {
    alarmDescription: `Helpdesk ${environment}: ${what}`,
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}

const PERIOD = Duration.minutes(5);

/** Alarm thresholds; the same in every environment (the traffic differs, the promises do not). */
export const ALARM_THRESHOLDS = {
  /** Percent of the API's responses that are 5xx, over 5 minutes, twice in a row. */
  serverErrorRatePercent: 5,
  /** Below this many requests in 5 minutes the rate is taken as 0 (one failed request is not 100%). */
  serverErrorRateMinRequests: 10,
  /** p99 of the API's latency (request in, response out), 3 periods of 5 minutes in a row. */
  p99LatencyMs: 3000,
  /** Any throttled invocation or refused (429) request in 5 minutes. */
  throttles: 1,
} as const;

/** The access log metric filter's metric: requests refused by the stage throttle (429). */
export const THROTTLED_REQUESTS_METRIC = 'ThrottledRequests';

export interface MonitoringProps {
  settings: EnvironmentSettings;
  api: HttpApi;
  /** The stage's access log group; its lines carry `status` and `environment` (api-stack.ts). */
  accessLogs: ILogGroup;
  /** Every function of the API, with the operation (handler path) each serves. */
  functions: ReadonlyMap<string, IFunction>;
}

export class Monitoring extends Construct {
  /** Every alarm notifies this topic, on alarm and on recovery. */
  readonly alarmTopic: Topic;
  readonly dashboard: Dashboard;
  /** Every alarm given to the topic; the dashboard's status widget reads this list at synthesis. */
  readonly alarms: AlarmBase[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { settings, api, accessLogs, functions } = props;
    const env = settings.name;

    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: `Helpdesk ${env} alarms`,
      enforceSSL: true,
    });
    Validations.of(this.alarmTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notices carry alarm names, states and metric values, no customer data. CloudWatch cannot publish ' +
        'to a topic encrypted with the AWS managed aws/sns key, so encryption would need a customer managed KMS ' +
        'key (and its policy) per environment for no data worth it.',
    });
    if (settings.alarmEmail) this.alarmTopic.addSubscription(new EmailSubscription(settings.alarmEmail));
    this.action = new SnsAction(this.alarmTopic);

    // --- the API as clients see it (API Gateway's metrics) ---
    const requests = api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' });
    const serverErrors = api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' });
    const clientErrors = api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' });
    const { serverErrorRateMinRequests: minRequests } = ALARM_THRESHOLDS;
    const serverErrorRate = new MathExpression({
      expression: `IF(requests >= ${minRequests}, 100 * errors / requests, 0)`,
      usingMetrics: { requests, errors: serverErrors },
      period: PERIOD,
      label: '5xx rate (%)',
    });
    const latency = (statistic: string) =>
      api.metricLatency({ period: PERIOD, statistic, label: `latency ${statistic}` });
    const integrationLatencyP99 = api.metricIntegrationLatency({
      period: PERIOD,
      statistic: 'p99',
      label: 'integration latency p99',
    });

    // --- throttling: Lambda (concurrency) and the stage throttle (429) ---
    // Account-wide (no dimension): the functions reserve no concurrency (environments.ts), so they
    // are throttled exactly when the account's shared pool is exhausted, and that is this figure. A
    // per-function sum would need 33 metrics, over CloudWatch's 10 per alarm.
    const lambdaThrottles = new Metric({
      namespace: 'AWS/Lambda',
      metricName: 'Throttles',
      period: PERIOD,
      statistic: 'Sum',
      label: 'Lambda throttles (account)',
    });
    new MetricFilter(this, 'ThrottledRequestsFilter', {
      logGroup: accessLogs,
      filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
      metricNamespace: METRICS.namespace,
      metricName: THROTTLED_REQUESTS_METRIC,
      metricValue: '1',
      dimensions: { [METRICS.dimensions.environment]: '$.environment' },
    });
    const throttledRequests = new Metric({
      namespace: METRICS.namespace,
      metricName: THROTTLED_REQUESTS_METRIC,
      dimensionsMap: { [METRICS.dimensions.environment]: env },
      period: PERIOD,
      statistic: 'Sum',
      label: 'API 429 (stage throttle)',
    });

    // --- alarms ---
    this.alarm('ServerErrorRate', serverErrorRate, {
      threshold: ALARM_THRESHOLDS.serverErrorRatePercent,
      evaluationPeriods: 2,
      description:
        `More than ${ALARM_THRESHOLDS.serverErrorRatePercent}% of the API's responses were 5xx for 10 ` +
        `minutes (with at least ${minRequests} requests in 5 minutes).`,
    });
    this.alarm('LatencyP99', latency('p99'), {
      threshold: ALARM_THRESHOLDS.p99LatencyMs,
      evaluationPeriods: 3,
      description: `The API's p99 latency was over ${ALARM_THRESHOLDS.p99LatencyMs} ms for 15 minutes.`,
    });
    this.alarm('LambdaThrottles', lambdaThrottles, {
      threshold: ALARM_THRESHOLDS.throttles,
      evaluationPeriods: 1,
      description:
        "Lambda throttled invocations in this account and region (the API's functions share its concurrency pool).",
    });
    this.alarm('ApiThrottledRequests', throttledRequests, {
      threshold: ALARM_THRESHOLDS.throttles,
      evaluationPeriods: 1,
      description:
        `The API stage throttle (${settings.throttle.rateLimit}/s, burst ${settings.throttle.burstLimit}) ` +
        'refused requests with 429.',
    });

    // --- per operation: the functions' own metrics (EMF), one line per operation ---
    // SEARCH finds one line per operation (or function) without listing them here.
    const searchTerms = (dimensions: string, metricName: string) =>
      `{${METRICS.namespace},${dimensions}} MetricName="${metricName}" ` +
      `${METRICS.dimensions.environment}="${env}" service="${SERVICE_NAME}"`;
    const search = (dimensions: string, metricName: string, statistic: string): IMetric =>
      new MathExpression({
        expression: `SEARCH('${searchTerms(dimensions, metricName)}', '${statistic}', ${PERIOD.toSeconds()})`,
        usingMetrics: {},
        label: '',
        period: PERIOD,
      });
    const byOperation = `${METRICS.dimensions.environment},${METRICS.dimensions.operation},service`;
    // Lambda's own view of each function: invocations that failed outright (crash, timeout; the
    // handlers answer errors as responses) and throttles. Dashboards take more metrics than alarms.
    const perFunction = (metric: (fn: IFunction) => Metric) =>
      [...functions].map(([operation, fn]) => metric(fn).with({ label: operation, period: PERIOD }));

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `Helpdesk-${env}`,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown:
              `# Helpdesk ${env}\nAPI Gateway metrics of the HTTP API, then the functions' own metrics ` +
              `per operation (namespace ` +
              `\`${METRICS.namespace}\`). Logs: one JSON line ` +
              `per request in each function's ` +
              `log group (\`message = ` +
              `"request"\`), and the ` +
              `stage's access log.`,
            width: 24,
            height: 2,
          }),
        ],
        // The list itself, not a copy: alarms added later with addAlarm show up too.
        [new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 3 })],
        [
          new GraphWidget({ title: 'Requests and errors', left: [requests, clientErrors, serverErrors], width: 8 }),
          new GraphWidget({
            title: '5xx rate (%)',
            left: [serverErrorRate],
            leftAnnotations: [{ value: ALARM_THRESHOLDS.serverErrorRatePercent, label: 'alarm' }],
            width: 8,
          }),
          new GraphWidget({
            title: 'Latency (ms)',
            left: [latency('p50'), latency('p90'), latency('p99'), integrationLatencyP99],
            leftAnnotations: [{ value: ALARM_THRESHOLDS.p99LatencyMs, label: 'p99 alarm' }],
            width: 8,
          }),
        ],
        [
          new GraphWidget({ title: 'Throttling', left: [lambdaThrottles, throttledRequests], width: 8 }),
          new GraphWidget({
            title: 'Requests per operation',
            left: [search(byOperation, METRICS.requests, 'Sum')],
            width: 8,
          }),
          new GraphWidget({
            title: '5xx per operation',
            left: [search(byOperation, METRICS.serverErrors, 'Sum')],
            width: 8,
          }),
        ],
        [
          new GraphWidget({
            title: 'Latency p99 per operation (ms)',
            left: [search(byOperation, METRICS.latency, 'p99')],
            width: 6,
          }),
          new GraphWidget({
            title: 'Cold starts per function',
            left: [search(`${METRICS.dimensions.environment},function_name,service`, 'ColdStart', 'Sum')],
            width: 6,
          }),
          new GraphWidget({
            title: 'Failed invocations per function',
            left: perFunction((fn) => fn.metricErrors()),
            width: 6,
          }),
          new GraphWidget({
            title: 'Throttles per function',
            left: perFunction((fn) => fn.metricThrottles()),
            width: 6,
          }),
        ],
      ],
    });
  }

  /** Sends `alarm`'s changes (to ALARM and back to OK) to the alarm topic, and lists it on the dashboard. */
  addAlarm(alarm: AlarmBase): void {
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
  }

  private alarm(
    id: string,
    metric: IMetric,
    options: { threshold: number; evaluationPeriods: number; description: string },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    this.addAlarm(alarm);
    return alarm;
  }
}
