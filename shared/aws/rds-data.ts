/**
 * The RDS Data API (the search engine on AWS: shared/search/data-api.ts) without the SDK: its four
 * operations are REST JSON POSTs (`/Execute`, `/BeginTransaction`, `/CommitTransaction`,
 * `/RollbackTransaction`), sent through the store's own AWS request code (aws-request.ts), as ses.ts
 * sends SES's, with its signing (`rds-data`), sockets, headers and the SDK's standard retry strategy
 * (3 attempts, its classification). The SDK's client put 477 KiB into each route that searches; what
 * it sends is held to this module's by tests/unit/rds-data.test.ts. An error the Data API answers
 * (DatabaseResumingException, BadRequestException ...) is thrown with its name.
 */
import { DEFAULT_MAX_ATTEMPTS, StandardRetryStrategy } from '@smithy/util-retry';
import { config } from '../config';
import { restJsonError, restJsonPost } from './aws-json';
import { AwsService, serviceEndpoint } from './aws-request';

const dataApi = new AwsService('rds-data', 'rds_data', restJsonError);

const OPERATIONS = {
  ExecuteStatement: '/Execute',
  BeginTransaction: '/BeginTransaction',
  CommitTransaction: '/CommitTransaction',
  RollbackTransaction: '/RollbackTransaction',
} as const;
type Operation = keyof typeof OPERATIONS;

/** The process's retry strategy (and budget) for the Data API, with the SDK clients' default attempts. */
const strategy = new StandardRetryStrategy({ maxAttempts: DEFAULT_MAX_ATTEMPTS });
/**
 * An attempt may go this long without a byte: the Data API answers a statement when it is done, and
 * it ends a statement itself at 45 s.
 */
const ATTEMPT_MS = 45_000;

/** A statement's parameter, as the Data API types it (only the kinds the search engine sends). */
export type SqlParameter = {
  name: string;
  value: { isNull: true } | { booleanValue: boolean } | { stringValue: string };
};

export interface ExecuteStatementInput {
  resourceArn: string;
  secretArn: string;
  database?: string;
  sql: string;
  parameters?: SqlParameter[];
  transactionId?: string;
  formatRecordsAs?: 'JSON' | 'NONE';
}

/** The Data API's inputs and outputs per operation (the fields the search engine uses). */
interface Calls {
  ExecuteStatement: [ExecuteStatementInput, { formattedRecords?: string; numberOfRecordsUpdated?: number }];
  BeginTransaction: [{ resourceArn: string; secretArn: string; database?: string }, { transactionId?: string }];
  CommitTransaction: [
    { resourceArn: string; secretArn: string; transactionId: string },
    { transactionStatus?: string },
  ];
  RollbackTransaction: [
    { resourceArn: string; secretArn: string; transactionId: string },
    { transactionStatus?: string },
  ];
}

/** Calls `operation` with `input`; its parsed answer, or the Data API's error by name. */
export async function rdsData<O extends Operation>(operation: O, input: Calls[O][0]): Promise<Calls[O][1]> {
  const region = config.aws.region;
  const url = new URL(OPERATIONS[operation], serviceEndpoint('rds-data', region, config.aws.rdsDataEndpoint));
  const body = JSON.stringify(input);
  const text = await restJsonPost(dataApi, strategy, {
    call: `rds-data ${operation}`,
    url,
    region,
    body,
    attemptMs: ATTEMPT_MS,
  });
  return (text ? JSON.parse(text) : {}) as Calls[O][1];
}
