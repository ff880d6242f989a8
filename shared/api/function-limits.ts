/**
 * The route functions' limits, one value for the CDK stack (infra/lambda.ts), the functions and the local runtime
 * (infra/local/server.ts, which answers a request past them as the HTTP API does).
 */
export const ROUTE_FUNCTION_TIMEOUT_SECONDS = 15;

/**
 * Lambda's limit on a synchronous response payload (the handler's result, as JSON), as its error names it
 * ("exceeded maximum allowed payload size"): the functions park a larger answer (shared/middleware/large-answers.ts).
 */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6_291_556;
