/**
 * Makes a fresh local data directory usable: the table and the listings table (same schemas as the CDK stack), the
 * bucket, queue 1 and a staff superuser. Safe to run on every start.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { LISTINGS_SCHEMA, projectionOf, TABLE_SCHEMA, type IndexSchema } from '../../shared/store/schema';
import { config, listingsTableOf } from '../../shared/config';
import { seedFirstQueue } from '../../shared/store/queues';
import { backfillIfUncounted } from '../../shared/consumer/backfill';
import { createUser, findUserByUsername, saveUser } from '../../shared/store/users';
import { hashPassword } from '../../shared/domain/password';
import { newUserRecord } from '../../shared/domain/user';

/** The table and the listings table, each made or brought up to its schema. */
export async function ensureTable(client: DynamoDBClient): Promise<void> {
  await Promise.all([ensureMainTable(client), ensureListingsTable(client)]);
}

/** An index as CreateTable and UpdateTable name it. */
const indexSpec = (i: IndexSchema) => {
  const { type, attributes } = projectionOf(i);
  return {
    IndexName: i.name,
    KeySchema: [
      { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: type, ...(attributes ? { NonKeyAttributes: attributes } : {}) },
  };
};

/** Adds the indexes a table made by an earlier version lacks (one at a time, as DynamoDB takes them). */
async function addMissingIndexes(
  client: DynamoDBClient,
  TableName: string,
  present: { IndexName?: string }[] | undefined,
  indexes: readonly IndexSchema[],
): Promise<void> {
  const names = new Set((present ?? []).map((i) => i.IndexName));
  for (const i of indexes.filter((index) => !names.has(index.name))) {
    await client.send(
      new UpdateTableCommand({
        TableName,
        AttributeDefinitions: [i.partitionKey, i.sortKey].map((AttributeName) => ({
          AttributeName,
          AttributeType: 'S',
        })),
        GlobalSecondaryIndexUpdates: [{ Create: indexSpec(i) }],
      }),
    );
  }
}

async function ensureListingsTable(client: DynamoDBClient): Promise<void> {
  const { partitionKey, indexes, timeToLive } = LISTINGS_SCHEMA;
  const TableName = listingsTableOf(config.tableName);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    return await addMissingIndexes(client, TableName, Table?.GlobalSecondaryIndexes, indexes);
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const attributes = new Set<string>([partitionKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [{ AttributeName: partitionKey, KeyType: 'HASH' }],
      GlobalSecondaryIndexes: indexes.map(indexSpec),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: { AttributeName: timeToLive, Enabled: true } }),
  );
}

async function ensureMainTable(client: DynamoDBClient): Promise<void> {
  const { partitionKey, sortKey, indexes, timeToLive, stream } = TABLE_SCHEMA;
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: config.tableName }));
    // A data directory made before the table had its stream (ticket counts follow it), or before it
    // carried old images: a stream's view type changes only by turning it off and on again.
    const current = Table?.StreamSpecification;
    if (current?.StreamEnabled && current.StreamViewType !== stream) {
      await client.send(
        new UpdateTableCommand({ TableName: config.tableName, StreamSpecification: { StreamEnabled: false } }),
      );
    }
    if (!current?.StreamEnabled || current.StreamViewType !== stream) {
      await client.send(
        new UpdateTableCommand({
          TableName: config.tableName,
          StreamSpecification: { StreamEnabled: true, StreamViewType: stream },
        }),
      );
    }
    // A data directory made before an index existed gets it added.
    await addMissingIndexes(client, config.tableName, Table?.GlobalSecondaryIndexes, indexes);
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const attributes = new Set<string>([partitionKey, sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
  await client.send(
    new CreateTableCommand({
      TableName: config.tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map(indexSpec),
      StreamSpecification: { StreamEnabled: true, StreamViewType: stream },
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: config.tableName,
      TimeToLiveSpecification: { AttributeName: timeToLive, Enabled: true },
    }),
  );
}

/** Creates the attachments bucket if it is not there (the server's start, and a CLI command that writes files). */
export async function ensureBucket(client: S3Client): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: config.bucketName }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: config.bucketName }));
  }
}

export interface AdminAccount {
  username: string;
  /** Set only when this start generated it (it is printed once). */
  generatedPassword?: string;
}

/**
 * A staff superuser: HELPDESK_ADMIN_USERNAME / HELPDESK_ADMIN_PASSWORD when given (the password is
 * then (re)set to the given one), else `admin` with a generated password on first start.
 */
async function ensureAdmin(): Promise<AdminAccount> {
  const username = process.env.HELPDESK_ADMIN_USERNAME || 'admin';
  const given = process.env.HELPDESK_ADMIN_PASSWORD;
  const existing = await findUserByUsername(username);
  if (existing) {
    if (given) {
      await saveUser({
        ...existing,
        is_staff: true,
        is_superuser: true,
        is_active: true,
        password_hash: await hashPassword(given),
      });
    }
    return { username };
  }
  const password = given || randomBytes(12).toString('base64url');
  await createUser(await newUserRecord({ username, email: '' }, password, 'superuser'));
  return { username, generatedPassword: given ? undefined : password };
}

export async function bootstrap(): Promise<AdminAccount> {
  await Promise.all([
    ensureTable(new DynamoDBClient({})),
    ensureBucket(new S3Client({ forcePathStyle: config.s3ForcePathStyle })),
  ]);
  await seedFirstQueue({ title: 'Support', slug: 'support' });
  await backfillIfUncounted();
  return ensureAdmin();
}
