/**
 * X-Ray tracing inside a function, with the Powertools Tracer: a `## handler` subsegment with the
 * cold start and service annotations, and one subsegment per DynamoDB call and per S3 request: the
 * Tracer follows node:http, which the store's DynamoDB client calls (aws/dynamodb.ts), and `fetch`,
 * which S3's calls go through. Only the functions that infra/bundling.ts
 * names import this module (see observe.ts); Lambda's active tracing covers the others.
 */
import type middy from '@middy/core';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { SERVICE_NAME } from '../observability';
import type { ApiEvent, HttpResult } from './http';

export const tracer = new Tracer({ serviceName: SERVICE_NAME });

/**
 * `captureLambdaHandler` without the response (ticket data is not for traces) and without marking
 * the answers the API gives on purpose (401, 404, 400 ...) as faults: an error that the chain
 * turned into a response below 500 closes the subsegment as a success.
 */
export function traceHandler(): middy.MiddlewareObj<ApiEvent, HttpResult> {
  const capture = captureLambdaHandler(tracer, { captureResponse: false }) as middy.MiddlewareObj<ApiEvent, HttpResult>;
  return {
    before: capture.before,
    after: capture.after,
    onError: async (request) => {
      await ((request.response?.statusCode ?? 500) < 500 ? capture.after!(request) : capture.onError!(request));
    },
  };
}
