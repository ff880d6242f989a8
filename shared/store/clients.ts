/**
 * The DynamoDB client, built once per process (module scope) and reused across invocations. The S3
 * client lives in files.ts, so functions that touch no file do not bundle it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A call that hangs fails rather than running into the function's timeout (10 s): each attempt may
 * take 1 s to connect and 2 s in all (DynamoDB answers in milliseconds), and the attempts are pinned
 * at 4 (the SDK's DynamoDB default, which a later SDK could change), so a TimeoutError reaches the
 * error middleware (a JSON 503 with Retry-After) after about 8 s at worst.
 */
export const DYNAMO_TIMEOUTS = { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true };
export const DYNAMO_MAX_ATTEMPTS = 4;

export const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({ requestHandler: DYNAMO_TIMEOUTS, maxAttempts: DYNAMO_MAX_ATTEMPTS }), {
  marshallOptions: { removeUndefinedValues: true },
});
