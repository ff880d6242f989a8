import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { withoutSdkLogging } from '../../infra/local/table-stream';

describe('withoutSdkLogging', () => {
  it(
    "takes the SDK's logger middleware (which filters every input and output for a no-op logger) out of a " +
      'client, and nothing else',
    () => {
      const client = new DynamoDBClient({ region: 'us-east-1' });
      const before = client.middlewareStack.identify();
      expect(before.some((m) => m.startsWith('loggerMiddleware'))).toBe(true);
      withoutSdkLogging(client);
      const after = client.middlewareStack.identify();
      expect(after.some((m) => m.startsWith('loggerMiddleware'))).toBe(false);
      expect(after).toHaveLength(before.length - 1);
    },
  );
});
