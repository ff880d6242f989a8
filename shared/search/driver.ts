/**
 * The search engine behind one interface: PostgreSQL, embedded (PGlite, in a worker thread:
 * pglite.ts) or Aurora Serverless v2 through the RDS Data API (data-api.ts). Statements are the
 * named-parameter SQL of sql.ts; each driver binds the names its own way (bindNamed).
 */

/** A parameter value: lists travel as JSON text (sql.ts). */
export type SqlValue = string | boolean | null;
export type SqlParams = Record<string, SqlValue>;
export interface Statement {
  sql: string;
  params?: SqlParams;
}
export type Row = Record<string, unknown>;

export interface SearchDriver {
  /** One statement's rows. */
  query(statement: Statement): Promise<Row[]>;
  /** Statements in one transaction, in order: all or none. */
  transaction(statements: readonly Statement[]): Promise<void>;
  close(): Promise<void>;
}

/** The engine is paused or resuming (Aurora at 0 ACU): a search answers 503 with Retry-After. */
export class SearchEngineUnavailable extends Error {
  constructor(
    readonly retryAfterSeconds: number,
    cause?: unknown,
  ) {
    super('The search engine is resuming', { cause });
  }
}

/**
 * `sql` with each `:name` (never `::`, a cast) replaced by `placeholder(name, index)`, cast to the
 * value's type (text or boolean): a bare parameter that is only compared with NULL has no type
 * PostgreSQL could infer. Returns the values in the order of their first use.
 */
export function bindNamed(
  sql: string,
  params: SqlParams,
  placeholder: (name: string, index: number) => string,
): { sql: string; names: string[] } {
  const names: string[] = [];
  const bound = sql.replace(/(?<![:\w]):([a-z][a-z_0-9]*)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`Search statement parameter :${name} has no value`);
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `CAST(${placeholder(name, index)} AS ${typeof params[name] === 'boolean' ? 'boolean' : 'text'})`;
  });
  return { sql: bound, names };
}
