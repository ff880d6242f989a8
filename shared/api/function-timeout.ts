/**
 * The route functions' timeout, one value for the CDK stack (infra/lambda.ts) and the local runtime
 * (infra/local/server.ts, which answers a request that runs longer as the HTTP API does).
 */
export const ROUTE_FUNCTION_TIMEOUT_SECONDS = 15;
