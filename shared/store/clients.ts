/**
 * The DynamoDB client, built once per process (module scope) and reused across invocations. The S3
 * client lives in files.ts, so functions that touch no file do not bundle it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
