/**
 * The search index's SQL, written once for both drivers (PGlite locally, the RDS Data API on
 * Aurora): parameters are named (`:name`) and scalar (text, number, boolean or null); lists travel
 * as JSON text, since the Data API takes no arrays. docs/data-model.md, "Search", describes the tables.
 *
 * search_parts holds every searchable text of a ticket, one row per field, replaced whole per table
 * item; search_tickets one row per ticket with the list filters' values and two documents built
 * from its parts: everything (staff) and the public text only (requesters). A custom field value's
 * visibility is its definition's (search_custom_fields), a file name's its followup's
 * (search_followups): search_visible_parts resolves both. search_queues holds each queue's text
 * search configuration (its language: domain/search-language.ts), which its tickets' documents are
 * built with.
 */
import { DEFAULT_SEARCH_CONFIG, SEARCH_CONFIGS, SEARCH_LANGUAGES } from '../domain/search-language';

/** A configuration's name as a literal: only ever one of ours (SEARCH_CONFIGS), never text from a request. */
const configLiteral = (name: string): string => {
  if (!SEARCH_CONFIGS.includes(name)) throw new Error(`not a search configuration: ${name}`);
  return `'${name}'::regconfig`;
};
const DEFAULT_CONFIG = configLiteral(DEFAULT_SEARCH_CONFIG);

/** Run once at start, in order; each is idempotent. */
export const SCHEMA: readonly string[] = [
  'CREATE EXTENSION IF NOT EXISTS unaccent',
  'CREATE EXTENSION IF NOT EXISTS pg_trgm',
  // Per language whose Snowball stemmer the engine has, its stemming after accent folding (helpdesk_english:
  // "Café" and "cafe" are one lexeme, "laptops" and "laptop" too). A language the engine lacks gets none.
  `DO $$ DECLARE lang text; BEGIN
     FOREACH lang IN ARRAY ARRAY[${SEARCH_LANGUAGES.map((l) => `'${l}'`).join(', ')}] LOOP
       IF EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = lang || '_stem')
         AND NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'helpdesk_' || lang) THEN
         EXECUTE format('CREATE TEXT SEARCH CONFIGURATION %I (COPY = %I)', 'helpdesk_' || lang, lang);
         EXECUTE format('ALTER TEXT SEARCH CONFIGURATION %I ALTER MAPPING FOR hword, hword_part, word '
           'WITH unaccent, %I',
           'helpdesk_' || lang, lang || '_stem');
       END IF;
     END LOOP;
   END $$`,
  `CREATE TABLE IF NOT EXISTS search_tickets (
     id bigint PRIMARY KEY,
     queue bigint NOT NULL,
     status int NOT NULL,
     priority int NOT NULL,
     assigned_to bigint,
     submitter_email text,
     created text NOT NULL,
     modified text NOT NULL,
     due_date text,
     merged boolean NOT NULL,
     config regconfig NOT NULL,
     staff_doc tsvector NOT NULL DEFAULT ''::tsvector,
     public_doc tsvector NOT NULL DEFAULT ''::tsvector,
     staff_text text NOT NULL DEFAULT '',
     public_text text NOT NULL DEFAULT ''
   )`,
  'CREATE INDEX IF NOT EXISTS search_tickets_staff ON search_tickets USING gin (staff_doc)',
  'CREATE INDEX IF NOT EXISTS search_tickets_public ON search_tickets USING gin (public_doc)',
  'CREATE INDEX IF NOT EXISTS search_tickets_staff_trgm ON search_tickets USING gin (staff_text gin_trgm_ops)',
  'CREATE INDEX IF NOT EXISTS search_tickets_public_trgm ON search_tickets USING gin (public_text gin_trgm_ops)',
  // Addresses match without case (issue 32): the index is on what the filters compare; the old one goes.
  'DROP INDEX IF EXISTS search_tickets_submitter',
  'CREATE INDEX IF NOT EXISTS search_tickets_submitter_lower ON search_tickets (lower(submitter_email))',
  // The configurations in use, read by a search as a loose index scan (a few probes); a queue's
  // tickets built with another configuration than its own (a language changed).
  'CREATE INDEX IF NOT EXISTS search_tickets_config ON search_tickets (config)',
  'CREATE INDEX IF NOT EXISTS search_tickets_queue_config ON search_tickets (queue, config)',
  // Each queue's configuration; `reindexing` while some of its tickets are built with another.
  `CREATE TABLE IF NOT EXISTS search_queues (
     id bigint PRIMARY KEY,
     config regconfig NOT NULL,
     reindexing boolean NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS search_parts (
     ticket bigint NOT NULL,
     item text NOT NULL,
     seq int NOT NULL,
     field text NOT NULL,
     followup bigint,
     field_key text,
     private boolean NOT NULL,
     text text NOT NULL,
     PRIMARY KEY (ticket, item, seq)
   )`,
  `CREATE TABLE IF NOT EXISTS search_followups (
     id bigint PRIMARY KEY,
     ticket bigint NOT NULL,
     private boolean NOT NULL
   )`,
  'CREATE INDEX IF NOT EXISTS search_followups_ticket ON search_followups (ticket)',
  `CREATE TABLE IF NOT EXISTS search_custom_fields (
     key text PRIMARY KEY,
     name text NOT NULL,
     staff_only boolean NOT NULL
   )`,
  // Custom field values of a deleted definition are shown nowhere, so they are searched nowhere. A file name's
  // followup is looked up by key, part by part: as a join, the followups' hash outgrew work_mem at about 150,000 of
  // them and was built again for every ticket of a batch (13 s a batch of 500, against 0.3).
  'CREATE OR REPLACE VIEW search_visible_parts AS\n     SELECT p.ticket, p.item, p.seq, p.field, p.followup, ' +
    'c.name AS custom_field, p.text,\n            p.private OR coalesce(c.staff_only, false) OR (p.field = ' +
    "'attachment' AND coalesce((SELECT f.private FROM search_followups f WHERE f.id = p.followup), false)) AS " +
    'private\n     FROM search_parts p\n     LEFT JOIN search_custom_fields c ON c.key = p.field_key\n     ' +
    'WHERE p.field_key IS NULL OR c.key IS NOT NULL',
  // The ticket ids each batch asks the documents of to be built again (a temporary list per transaction).
  'CREATE TABLE IF NOT EXISTS search_dirty (ticket bigint PRIMARY KEY)',
  // A rebuild under way: the ticket it goes on from (rebuild.ts). No row: none.
  'CREATE TABLE IF NOT EXISTS search_rebuild (one int PRIMARY KEY CHECK (one = 1), next_ticket bigint NOT NULL)',
];

const ids = (param: string) =>
  `SELECT CAST(value AS bigint) AS id FROM jsonb_array_elements_text(CAST(:${param} AS jsonb))`;

/** The statements of one batch of table changes, run in one transaction, in this order. */
// Built by a call marked pure, so that a bundle that names none of them (a route's: the indexer's alone) leaves them
// out: their strings are built by calls.
export const APPLY = /* @__PURE__ */ (() =>
  ({
    /** `:tickets`: ids of tickets removed. */
    removeTickets: [
      `DELETE FROM search_tickets WHERE id IN (${ids('tickets')})`,
      `DELETE FROM search_parts WHERE ticket IN (${ids('tickets')})`,
      `DELETE FROM search_followups WHERE ticket IN (${ids('tickets')})`,
    ],
    /**
     * `:rows`: queues [{id, config}] (a configuration the engine lacks: English); a queue whose configuration
     * changes is marked for its tickets to be built again (REINDEX); `:removed`: ids of queues removed.
     */
    queues: [
      'INSERT INTO search_queues (id, config, reindexing)\n     SELECT r.id, ' +
        'coalesce((SELECT CAST(c.oid AS regconfig) ' +
        `FROM pg_ts_config c WHERE c.cfgname = r.config), ${DEFAULT_CONFIG}), true\n     FROM ` +
        'jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(id bigint, config text)\n     ON CONFLICT (id) DO UPDATE ' +
        'SET config = excluded.config, reindexing = true WHERE search_queues.config <> excluded.config',
      `DELETE FROM search_queues WHERE id IN (${ids('removed')})`,
    ],
    /**
     * `:rows`: search_tickets rows (their list values; the documents, and the configuration they are built with, are
     * built below).
     */
    upsertTickets:
      'INSERT INTO search_tickets (id, queue, status, priority, assigned_to, submitter_email, created, modified, ' +
      'due_date, merged, config)\n     SELECT r.id, r.queue, r.status, r.priority, r.assigned_to, ' +
      `r.submitter_email, r.created, r.modified, r.due_date, r.merged, ${DEFAULT_CONFIG}\n     FROM ` +
      'jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(id bigint, queue bigint, status int, priority int, ' +
      'assigned_to bigint,\n       submitter_email text, created text, modified text, due_date text, merged ' +
      'boolean)\n     ON CONFLICT (id) DO UPDATE SET queue = excluded.queue, status = ' +
      'excluded.status, priority = excluded.priority,\n       assigned_to = excluded.assigned_to, submitter_email ' +
      '= excluded.submitter_email, created = excluded.created,\n       modified = excluded.modified, due_date = ' +
      'excluded.due_date, merged = excluded.merged',
    /** `:items`: the [ticket, item] pairs whose parts are replaced; `:parts`: their new parts. */
    replaceParts: [
      `DELETE FROM search_parts p USING jsonb_to_recordset(CAST(:items AS jsonb)) AS i(ticket bigint, item text)
     WHERE p.ticket = i.ticket AND p.item = i.item`,
      'INSERT INTO search_parts (ticket, item, seq, field, followup, field_key, private, text)\n     SELECT ' +
        'r.ticket, r.item, r.seq, r.field, r.followup, r.field_key, r.private, r.text\n     FROM ' +
        'jsonb_to_recordset(CAST(:parts AS jsonb)) AS r(ticket bigint, item text, seq int, field text, followup ' +
        'bigint, field_key text, private boolean, text text)',
    ],
    /** `:rows`: followups present [{id, ticket, private}]; `:removed`: ids of followups removed. */
    followups: [
      'INSERT INTO search_followups (id, ticket, private)\n     SELECT r.id, r.ticket, r.private FROM ' +
        'jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(id bigint, ticket bigint, private boolean)\n     ON CONFLICT ' +
        '(id) DO UPDATE SET ticket = excluded.ticket, private = excluded.private',
      `DELETE FROM search_followups WHERE id IN (${ids('removed')})`,
    ],
    /** `:rows`: definitions [{key, name, staff_only}]; `:removed`: keys of definitions removed. */
    customFields: [
      'INSERT INTO search_custom_fields (key, name, staff_only)\n     SELECT r.key, r.name, r.staff_only FROM ' +
        'jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(key text, name text, staff_only boolean)\n     ON CONFLICT ' +
        '(key) DO UPDATE SET name = excluded.name, staff_only = excluded.staff_only',
      'DELETE FROM search_custom_fields WHERE key IN (SELECT value FROM jsonb_array_elements_text(CAST(:removed AS ' +
        'jsonb)))',
    ],
    /**
     * `:tickets`: tickets whose documents change; `:keys`: custom field keys whose visibility changed (their tickets
     * too).
     */
    markDirty: [
      `INSERT INTO search_dirty (ticket) ${ids('tickets')} ON CONFLICT DO NOTHING`,
      `INSERT INTO search_dirty (ticket) SELECT DISTINCT ticket FROM search_parts
     WHERE field_key IN (SELECT value FROM jsonb_array_elements_text(CAST(:keys AS jsonb))) ON CONFLICT DO NOTHING`,
    ],
    /** Builds the documents of the tickets marked, with their queue's configuration, then forgets the marks. */
    rebuildDirty: [
      // The marks' true number for the planner (a few hundred, where the table's pages, emptied by every batch,
      // suggest thousands): with it the statement below reads the marked tickets' rows by key, not every row of the
      // index (measured at 20,000 tickets: 350 ms a batch of 500 with scans of every ticket and part, growing with the
      // index).
      'ANALYZE search_dirty',
      // Each marked ticket's parts read by key (LATERAL), never a join of every part. Both sets MATERIALIZED: inlined,
      // the planner may put one on the inner side of a nested loop and build it again for every marked ticket (seen at
      // 140,000 tickets without statistics: a batch of 500 took minutes).
      `WITH cfg AS MATERIALIZED (
       SELECT d.ticket, coalesce(q.config, ${DEFAULT_CONFIG}) AS config
       FROM search_dirty d JOIN search_tickets t ON t.id = d.ticket LEFT JOIN search_queues q ON q.id = t.queue
     ), parts AS MATERIALIZED (
       SELECT d.ticket, x.title, x.staff_rest, x.public_rest FROM search_dirty d CROSS JOIN LATERAL (
         SELECT
           string_agg(p.text, ' ' ORDER BY p.item, p.seq) FILTER (WHERE p.field = 'title') AS title,
           string_agg(p.text, ' ' ORDER BY p.item, p.seq) FILTER (WHERE p.field <> 'title') AS staff_rest,
           string_agg(p.text, ' ' ORDER BY p.item, p.seq) FILTER (WHERE p.field <> 'title' AND NOT p.private)
             AS public_rest
         FROM search_visible_parts p WHERE p.ticket = d.ticket
       ) x
     )
     UPDATE search_tickets t SET
       config = c.config,
       staff_doc = setweight(to_tsvector(c.config, coalesce(p.title, '')), 'A')
         || setweight(to_tsvector(c.config, coalesce(p.staff_rest, '')), 'B'),
       public_doc = setweight(to_tsvector(c.config, coalesce(p.title, '')), 'A')
         || setweight(to_tsvector(c.config, coalesce(p.public_rest, '')), 'B'),
       staff_text = lower(unaccent(concat_ws(' ', p.title, p.staff_rest))),
       public_text = lower(unaccent(concat_ws(' ', p.title, p.public_rest)))
     FROM cfg c LEFT JOIN parts p ON p.ticket = c.ticket
     WHERE t.id = c.ticket`,
      'DELETE FROM search_dirty',
    ],
  }) as const)();

/**
 * A queue's language changed: its tickets are built again with its new configuration, REINDEX_BATCH
 * at a time, each batch one transaction (APPLY.rebuildDirty after `mark`), until none is left.
 */
export const REINDEX_BATCH = 500;
/**
 * A queue's tickets built with another configuration than its own, as two ranges of the (queue, config) index: `<>`
 * is no index condition, and a scan of the table per batch made a re-index quadratic (4.3 ms a ticket at 200,000,
 * 0.7 at 20,000).
 */
const BUILT_OTHERWISE = (limit: number) =>
  ['<', '>']
    .map((op) => `(SELECT t.id FROM search_tickets t WHERE t.queue = q.id AND t.config ${op} q.config LIMIT ${limit})`)
    .join(' UNION ALL ');
export const REINDEX = /* @__PURE__ */ (() =>
  ({
    /** Marks up to REINDEX_BATCH tickets of the queues being re-indexed that are built with another configuration. */
    mark: `INSERT INTO search_dirty (ticket)
     SELECT m.id FROM search_queues q, LATERAL (${BUILT_OTHERWISE(REINDEX_BATCH)}) m
     WHERE q.reindexing LIMIT ${REINDEX_BATCH} ON CONFLICT DO NOTHING`,
    /** Queues whose tickets are all built with their configuration are done. */
    done: `UPDATE search_queues q SET reindexing = false WHERE q.reindexing
     AND NOT EXISTS (${BUILT_OTHERWISE(1)})`,
    /** Whether any is left (a row: yes). */
    pending: 'SELECT 1 AS pending FROM search_queues WHERE reindexing LIMIT 1',
  }) as const)();

/**
 * The query of a search in one text search configuration (`config`: an expression of type regconfig):
 * the words through websearch_to_tsquery, AND the last word as a prefix of a quoted lexeme.
 */
const tsquery = (config: string, words: string) => `CASE WHEN :prefix = ''
    THEN websearch_to_tsquery(${config}, ${words})
    ELSE websearch_to_tsquery(${config}, ${words}) && to_tsquery(${config}, quote_literal(:prefix) || ':*') END`;

/**
 * The configurations the tickets are built with, as a loose scan of their index (a probe per configuration): a
 * search returns them (`configs`), so that the caller knows when a query built for others missed some.
 */
const CONFIGS_IN_USE = `used(config) AS (
    (SELECT config FROM search_tickets ORDER BY config LIMIT 1)
    UNION ALL
    SELECT (SELECT t.config FROM search_tickets t WHERE t.config > u.config ORDER BY t.config LIMIT 1)
    FROM used u WHERE u.config IS NOT NULL
  )`;

/** Whose text a search reads: staff all of it, requesters the public documents only. */
export type Audience = 'staff' | 'public';

/**
 * The tickets matching a search, as one scan of search_tickets (the planner ORs the indexes: the GIN
 * index of the audience's document for its words, the primary key for the tickets it names, the
 * trigram index for its codes as substrings; `:code` is the first code's LIKE pattern, escaped by
 * the caller, the others checked on the rows, and the other words must match too), filtered by the
 * lists' filters (each null when not given) and the caller's access: `:own_email` (a requester's own
 * tickets), `:queues` (JSON list of queue ids allowed, or null for all) and `:also_assigned` (a user
 * whose tickets are allowed in any queue). No rank here: the count and the other orderings need none.
 */
const matches = (audience: Audience, configs: readonly string[]) => {
  const doc = audience === 'public' ? 't.public_doc' : 't.staff_doc';
  const text = audience === 'public' ? 't.public_text' : 't.staff_text';
  // Per configuration its own query, on its own tickets: one tsquery for all would let a word's
  // exclusion in one language miss its stem in another.
  // `IS TRUE`: as an indexable `t.config = X`, the planner read every ticket of X through search_tickets_config
  // instead of X's matches through the document's GIN index (and comparing names costs a catalog lookup a row).
  // One configuration in use: no test at all, so that an exact GIN bitmap needs no recheck (a word in every
  // ticket cost twice the CPU with it); a ticket of another would be in `configs`, and the search run again.
  const each = (match: (i: number) => string) =>
    configs.length === 1
      ? `(${match(0)})`
      : `(${configs.map((c, i) => `((t.config = ${configLiteral(c)}) IS TRUE AND ${match(i)})`).join(' OR ')})`;
  const queries = configs.map(
    (c, i) => `${tsquery(configLiteral(c), ':text')} AS q${i}, ${tsquery(configLiteral(c), ':rest')} AS r${i}`,
  );
  return `
  ${CONFIGS_IN_USE},
  q AS (SELECT ${queries.join(',\n    ')}),
  codes AS (SELECT value AS pattern FROM jsonb_array_elements_text(CAST(:code_patterns AS jsonb))),
  hits AS (
    SELECT t.id, t.priority, t.created, t.modified, t.due_date, t.id = ANY (${NAMED}) AS named
    FROM search_tickets t
    WHERE (${each((i) => `${doc} @@ (SELECT q${i} FROM q)`)}
        OR t.id = ANY (${NAMED})
        OR (:code <> '' AND ${text} LIKE :code
          AND NOT EXISTS (SELECT 1 FROM codes WHERE ${text} NOT LIKE codes.pattern)
          AND ${each((i) => `(numnode((SELECT r${i} FROM q)) = 0 OR ${doc} @@ (SELECT r${i} FROM q))`)}))
      AND NOT t.merged
      AND (:queues IS NULL OR t.queue IN (${ids('queues')}) OR t.assigned_to = CAST(:also_assigned AS bigint))
      AND (:own_email IS NULL OR lower(t.submitter_email) = lower(:own_email))
      AND (:statuses IS NULL
        OR t.status IN (SELECT CAST(value AS int) FROM jsonb_array_elements_text(CAST(:statuses AS jsonb))))
      AND (:queue IS NULL OR t.queue = CAST(:queue AS bigint))
      AND (:assigned_to IS NULL
        OR (CASE WHEN :assigned_to = 'none' THEN t.assigned_to IS NULL
          ELSE t.assigned_to = CAST(:assigned_to AS bigint) END))
      AND (:priority IS NULL OR t.priority = CAST(:priority AS int))
      AND (:submitter_email IS NULL OR lower(t.submitter_email) = lower(:submitter_email))
      AND (:created_since IS NULL OR t.created >= :created_since)
      AND (:updated_since IS NULL OR t.modified >= :updated_since)
  )`;
};
/** The ticket ids a search names, as an array (an index condition on the primary key). */
const NAMED = `ARRAY(${ids('ids')})`;

/**
 * How many matches a relevance ordering ranks: the newest this many (by id), ranked by ts_rank_cd;
 * the older ones follow, newest first. Ranking reads each match's whole document (7 to 28 µs a
 * ticket in PGlite on the loaded benchmark machine), so an unbounded rank makes a word found in every
 * ticket cost that for every ticket; bounded, the rank costs the same at any size (the count and the
 * page still read every match: docs/data-model.md, "Search").
 */
export const RANKED_MATCHES = 1000;

/** The orderings a search takes (`relevance` unless `ordering` says otherwise), id breaking ties. */
export const SEARCH_ORDERS = {
  relevance: 'h.named DESC, r.rank DESC NULLS LAST, h.id DESC',
  id: 'h.id ASC',
  '-id': 'h.id DESC',
  created: 'h.created ASC, h.id ASC',
  '-created': 'h.created DESC, h.id DESC',
  modified: 'h.modified ASC, h.id ASC',
  '-modified': 'h.modified DESC, h.id DESC',
  priority: 'h.priority ASC, h.id ASC',
  '-priority': 'h.priority DESC, h.id DESC',
  due_date: 'h.due_date ASC NULLS LAST, h.id ASC',
  '-due_date': 'h.due_date DESC NULLS FIRST, h.id DESC',
} as const;
export type SearchOrder = keyof typeof SEARCH_ORDERS;

/** The rank of the newest RANKED_MATCHES matches (relevance only: the other orderings rank nothing). */
const ranked = (audience: Audience, configs: readonly string[]) => `,
  ranked AS MATERIALIZED (
    SELECT t.id, ts_rank_cd(${audience === 'public' ? 't.public_doc' : 't.staff_doc'},
      CASE t.config ${configs.map((c, i) => `WHEN ${configLiteral(c)} THEN (SELECT q${i} FROM q)`).join(' ')}
      END) AS rank
    FROM (SELECT id FROM hits ORDER BY id DESC LIMIT ${RANKED_MATCHES}) n JOIN search_tickets t ON t.id = n.id
  )`;

/**
 * A page of matches and their exact count (`total` on every row; one row of nulls when the page is empty), with
 * the query built per configuration of `configs`; `configs` on every row: the configurations in use, comma-separated
 * (a ticket built with one not in `configs` is not found by its words: the caller asks again with them).
 */
const PAGE_WINDOW = 'LIMIT CAST(:limit AS int) OFFSET CAST(:offset AS int)';
export const searchPage = (order: SearchOrder, audience: Audience, configs: readonly string[]) => {
  const relevance = order === 'relevance';
  return `WITH RECURSIVE ${matches(audience, configs)}${relevance ? ranked(audience, configs) : ''}
  SELECT c.total, p.id, (SELECT string_agg(CAST(config AS text), ',') FROM used WHERE config IS NOT NULL) AS configs
  FROM (SELECT count(*) AS total FROM hits) c
  LEFT JOIN LATERAL (
    SELECT h.id FROM hits h${relevance ? ' LEFT JOIN ranked r ON r.id = h.id' : ''}
    ORDER BY ${SEARCH_ORDERS[order]} ${PAGE_WINDOW}
  ) p ON true`;
};

/**
 * The snippets of a page's tickets: each part of theirs the caller may see, with its matched words
 * marked (ts_headline with U+0002 and U+0003, which no indexed text holds). The caller picks each
 * ticket's first part with a mark. The query is made once per configuration of the page's tickets (per part, it
 * cost about 2 ms of CPU a search in PGlite).
 */
export const SNIPPETS =
  `WITH q AS (
    SELECT c.config, ${tsquery('c.config', ':text')} AS query
    FROM (SELECT DISTINCT config FROM search_tickets WHERE id IN (${ids('tickets')})) c
  )
  SELECT p.ticket, p.field, p.followup, p.custom_field, p.text,
    ts_headline(t.config, p.text, q.query, 'StartSel=' || chr(2) || ', ` +
  `StopSel=' || chr(3) || ', MaxWords=30, MinWords=12, ` +
  `ShortWord=2, MaxFragments=2, ` +
  `FragmentDelimiter=" … ` +
  `"') AS marked
  FROM search_visible_parts p JOIN search_tickets t ON t.id = p.ticket JOIN q ON q.config = t.config
  WHERE p.ticket IN (${ids('tickets')}) AND (NOT :public OR NOT p.private)
  ORDER BY p.ticket, CASE p.field WHEN 'title' THEN 0 WHEN 'description' ` +
  `THEN 1 WHEN 'resolution' THEN 2 WHEN 'followup_title' ` +
  `THEN 3
    WHEN 'followup_comment' THEN 4 WHEN 'custom_field' THEN 5 WHEN 'attachment' THEN 6 ELSE 7 END, p.item, p.seq`;

/** What the rebuild compares: each ticket's documents (tests: a rebuild equals the live index). */
export const DOCUMENTS =
  'SELECT id, merged, config::text AS config, staff_doc::text AS staff, public_doc::text AS public ' +
  'FROM search_tickets ORDER BY id';

/** A rebuild's progress: where it goes on from, its start (the index emptied), each step, its end. */
export const REBUILD = {
  progress: 'SELECT next_ticket FROM search_rebuild',
  start: [
    'DELETE FROM search_parts',
    'DELETE FROM search_followups',
    'DELETE FROM search_custom_fields',
    'DELETE FROM search_queues',
    'DELETE FROM search_tickets',
    'DELETE FROM search_rebuild',
    'INSERT INTO search_rebuild (one, next_ticket) VALUES (1, 0)',
  ],
  /** `:next`: the ticket the rebuild goes on from if stopped now (the last one read: it may be incomplete). */
  advance: 'UPDATE search_rebuild SET next_ticket = CAST(:next AS bigint)',
  finish: 'DELETE FROM search_rebuild',
} as const;
