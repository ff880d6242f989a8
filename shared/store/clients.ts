/**
 * The DynamoDB client, built once per process (module scope) and reused across invocations. The S3
 * client lives in files.ts, so functions that touch no file do not bundle it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A call that hangs fails rather than running into the function's timeout (15 s): on AWS each
 * attempt may take 1 s to connect and 2 s in all (DynamoDB answers in milliseconds, so a slower
 * attempt is a hung one), and the attempts are pinned at 4 (the SDK's DynamoDB default, which a
 * later SDK could change), so a TimeoutError reaches the error middleware (a JSON 503 with
 * Retry-After) after about 8 s at worst. HELPDESK_DEPENDENCY_TIMEOUT_MS replaces the 2 s: the local
 * runtime sets it high, its engines being far slower under load. Too short a timeout would do harm:
 * a write given up on may still commit, and a client retrying the 503 would then write it twice.
 */
const attemptMs = Number(process.env.HELPDESK_DEPENDENCY_TIMEOUT_MS) || 2000;
export const DYNAMO_TIMEOUTS = { connectionTimeout: Math.min(1000, attemptMs), requestTimeout: attemptMs, throwOnRequestTimeout: true };
export const DYNAMO_MAX_ATTEMPTS = 4;

export const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ requestHandler: DYNAMO_TIMEOUTS, maxAttempts: DYNAMO_MAX_ATTEMPTS }), {
  marshallOptions: { removeUndefinedValues: true },
});
