/**
 * Logs and metrics, with Powertools for AWS Lambda: one Logger and one Metrics per process (module
 * scope, like the SDK clients). On Lambda the logger writes one JSON line per record and the metrics
 * are CloudWatch embedded-metric-format (EMF) lines, which CloudWatch turns into metrics with no API
 * call. `POWERTOOLS_DEV=true` (the local runtime's default) pretty-prints the records and keeps the
 * metrics out of the output.
 *
 * The names here are shared with the CDK stack (infra/monitoring.ts), which graphs and alarms on them.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { config } from './config';

export const SERVICE_NAME = 'helpdesk';

/** EMF metrics, per operation (the handler name, e.g. `tickets/create`). */
export const METRICS = {
  namespace: 'Helpdesk',
  /** Dimensions of every metric: `service` (Powertools' default), `environment`, `operation`. */
  dimensions: { environment: 'environment', operation: 'operation' },
  requests: 'Requests',
  /** Responses with a 5xx status. */
  serverErrors: 'ServerErrors',
  /** Responses with a 4xx status. */
  clientErrors: 'ClientErrors',
  /** From the first middleware in to the last one out, in milliseconds. */
  latency: 'Latency',
  /** Received mail kept for operators, failed or held (shared/mail-in/ingest.ts; alarmed: infra/mail-in.ts). */
  mailInProblems: 'MailInProblems',
} as const;

export const logger = new Logger({ serviceName: SERVICE_NAME });

export const metrics = new Metrics({
  namespace: METRICS.namespace,
  serviceName: SERVICE_NAME,
  defaultDimensions: { [METRICS.dimensions.environment]: config.environment },
});
