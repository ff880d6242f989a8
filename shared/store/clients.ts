/** AWS clients, built once per process (module scope) and reused across invocations. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config';

export const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});

export const s3 = new S3Client({
  forcePathStyle: config.s3ForcePathStyle,
  // Checksums only where S3 requires them: the default aws-chunked framing corrupts objects on
  // S3-compatible engines, and it buys nothing for small single-part uploads.
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
