import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { dynamo } from './clients';

type Item = Record<string, unknown>;

/** The pages of a Query, one request each, as the caller asks for them (leaving the loop stops it). */
export async function* queryPages(input: Omit<QueryCommandInput, 'TableName'>): AsyncGenerator<Item[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(new QueryCommand({ TableName: config.tableName, ...input, ExclusiveStartKey }));
    yield page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** A Query followed to its last page. */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input)) items.push(...page);
  return items;
}
