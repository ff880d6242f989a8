/**
 * The search engine on AWS: Aurora PostgreSQL Serverless v2 through the RDS Data API (one signed
 * HTTPS call per statement, no VPC for the caller). With a minimum capacity of 0 the cluster pauses
 * when idle; the first statement after that answers DatabaseResumingException while it resumes (a
 * search answers 503 with Retry-After then; the stream consumer's batch is retried by Lambda).
 */
import { rdsData, type SqlParameter } from '../aws/rds-data';
import { bindNamed, SearchEngineUnavailable, type Row, type SearchDriver, type Statement } from './driver';

/** How long a paused Aurora Serverless v2 cluster takes to resume, about (docs/cost.md): a client waits this long. */
export const RESUME_SECONDS = 15;

export interface DataApiTarget {
  clusterArn: string;
  secretArn: string;
  database: string;
}

function parameters({ sql, params = {} }: Statement): { sql: string; parameters: SqlParameter[] } {
  const bound = bindNamed(sql, params, (name) => `:${name}`);
  return {
    sql: bound.sql,
    parameters: bound.names.map((name): SqlParameter => {
      const value = params[name] ?? null;
      return {
        name,
        value:
          value === null
            ? { isNull: true }
            : typeof value === 'boolean'
              ? { booleanValue: value }
              : { stringValue: value },
      };
    }),
  };
}

/** The Data API's answer while a paused cluster resumes (an error of that name, HTTP 400). */
const RESUMING = 'DatabaseResumingException';

const unavailable = (error: unknown): never => {
  if (error instanceof Error && error.name === RESUMING) throw new SearchEngineUnavailable(RESUME_SECONDS, error);
  throw error;
};

export function dataApiDriver(target: DataApiTarget): SearchDriver {
  const base = { resourceArn: target.clusterArn, secretArn: target.secretArn, database: target.database };
  const execute = async (statement: Statement, transactionId?: string) => {
    const reply = await rdsData('ExecuteStatement', {
      ...base,
      ...parameters(statement),
      formatRecordsAs: 'JSON',
      ...(transactionId ? { transactionId } : {}),
    }).catch(unavailable);
    return reply.formattedRecords ? (JSON.parse(reply.formattedRecords) as Row[]) : [];
  };
  return {
    query: (statement) => execute(statement),
    async transaction(statements) {
      const { transactionId = '' } = await rdsData('BeginTransaction', base).catch(unavailable);
      const ends = { resourceArn: base.resourceArn, secretArn: base.secretArn, transactionId };
      try {
        for (const statement of statements) await execute(statement, transactionId);
        await rdsData('CommitTransaction', ends);
      } catch (error) {
        await rdsData('RollbackTransaction', ends).catch(() => undefined);
        throw error;
      }
    },
    close: () => Promise.resolve(),
  };
}
