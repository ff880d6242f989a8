/**
 * The outermost middlewares of every handler: Powertools' Logger context, EMF metrics and (in the
 * functions bundled with it) the X-Ray Tracer, then one log line per request. Being first in and
 * last out, they see the final response, whatever the inner middlewares threw.
 *
 * Nothing from the request beyond its route, method, path and ids is logged: no headers (the
 * `Authorization` header carries a password), no bodies, no query string.
 */
import type middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS, logger, metrics } from '../observability';
import type { ApiEvent, HttpResult } from './http';

type Middleware = middy.MiddlewareObj<ApiEvent, HttpResult>;

/**
 * The X-Ray SDK (through the Powertools Tracer) costs ~125 KB and ~60 ms of cold start, so it is
 * only in the functions that infra/bundling.ts names: their bundles replace this expression with
 * `"true"`, the others' with `"false"`, and esbuild then drops the import. Lambda's active tracing
 * traces every function without it. Unbundled (local runtime, tests) it is off unless asked for.
 */
// It must stay this expression: esbuild's define replaces it (infra/bundling.ts).
// eslint-disable-next-line no-restricted-properties -- a build-time constant (esbuild's define), not a setting
const tracing = process.env.HELPDESK_TRACER === 'true' ? await import('./tracing') : undefined;

/** The fields of a request's log line. */
export interface RequestLogFields {
  operation: string;
  request_id: string;
  route: string;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  cold_start: boolean;
}

/** Logs one line and records the metrics of each request, once its response is final. */
function requestLog(operation: string): Middleware {
  // Per handler, not per process: the local runtime serves every handler from one process.
  let coldStart = true;
  const started = new WeakMap<object, number>();
  const record = (request: middy.Request<ApiEvent, HttpResult>) => {
    const status = request.response?.statusCode ?? 500;
    const latency = Math.round((performance.now() - (started.get(request) ?? performance.now())) * 10) / 10;
    const event = request.event;
    const fields: RequestLogFields = {
      operation,
      request_id: event.requestContext?.requestId ?? '',
      route: event.routeKey ?? '',
      method: event.requestContext?.http?.method ?? '',
      path: event.rawPath ?? '',
      status,
      latency_ms: latency,
      cold_start: coldStart,
    };
    coldStart = false;
    if (status >= 500) logger.error('request', { ...fields });
    else logger.info('request', { ...fields });

    metrics.addDimension(METRICS.dimensions.operation, operation);
    metrics.addMetric(METRICS.requests, MetricUnit.Count, 1);
    metrics.addMetric(METRICS.serverErrors, MetricUnit.Count, status >= 500 ? 1 : 0);
    metrics.addMetric(METRICS.clientErrors, MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
    metrics.addMetric(METRICS.latency, MetricUnit.Milliseconds, latency);
  };
  return {
    before: (request) => void started.set(request, performance.now()),
    after: record,
    onError: record,
  };
}

/** In use order: context first (so every line carries it), metrics published last. */
export function observe(operation: string): Middleware[] {
  return [
    // logEvent: false whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event carries credentials.
    injectLambdaContext(logger, { logEvent: false, resetKeys: true }),
    logMetrics(metrics, { captureColdStartMetric: true }),
    ...(tracing ? [tracing.traceHandler()] : []),
    requestLog(operation),
  ];
}
