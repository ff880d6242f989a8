/**
 * The whole stored state of a runtime (every table item, every object under `attachments/`), how
 * two states differ, and the invariants that tie items, indexes, counters and files together. For
 * the fault injection tests, which run their own in-process runtime: nothing else writes to it.
 */
import { BatchWriteCommand, ScanCommand, type DynamoDB } from '../../shared/aws/dynamodb';
import { AwsClient } from 'aws4fetch';
import type { Json } from '../json';
import { SNAPSHOT_MAX_BYTES } from '../../shared/consumer/page-snapshots';
import { listingsTableOf } from '../../shared/config';
import { LISTING_CARRIED, LISTING_INDEXES, type ListingDimension } from '../../shared/store/keys';

/** A raw table item, read field by field. */
type Item = Record<string, Json>;

export interface State {
  /** `PK|SK` → the item. */
  items: Map<string, Item>;
  objects: Set<string>;
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object' && !(value instanceof Uint8Array) && !(value instanceof Set)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Item)[k])}`)
      .join(',')}}`;
  }
  if (value instanceof Set) return `set(${[...value].map(stable).sort().join(',')})`;
  return JSON.stringify(value);
}

/** The sort key a listing item (the listings table's: no sort key) is named by in a State. */
const LISTING_ITEM = 'LISTING';

/** Every item of the table and of the listings table (a listing item as `LISTED#<id>|LISTING`), every file. */
export async function readState(dynamo: DynamoDB, table: string, bucket: string): Promise<State> {
  const items = new Map<string, Item>();
  for (const TableName of [table, listingsTableOf(table)]) {
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await dynamo.send(new ScanCommand({ TableName, ConsistentRead: true, ExclusiveStartKey }));
      for (const item of page.Items ?? []) items.set(`${item.PK}|${item.SK ?? LISTING_ITEM}`, item);
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  return { items, objects: await listObjects(bucket) };
}

const s3 = () =>
  new AwsClient({
    accessKeyId: process.env.AWS_ACCESS_KEY_ID!,
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY!,
    service: 's3',
    region: process.env.AWS_REGION ?? 'us-east-1',
    retries: 0,
  });

/** The bucket's object keys under `prefix` (the state's: the attachments). */
export async function listObjects(bucket: string, prefix = 'attachments/'): Promise<Set<string>> {
  const keys = new Set<string>();
  let token: string | undefined;
  do {
    const url = new URL(`${process.env.AWS_ENDPOINT_URL_S3}/${bucket}`);
    url.searchParams.set('list-type', '2');
    url.searchParams.set('prefix', prefix);
    if (token) url.searchParams.set('continuation-token', token);
    const response = await s3().fetch(url.toString());
    const xml = await response.text();
    if (!response.ok) throw new Error(`ListObjectsV2 failed: ${response.status} ${xml}`);
    for (const m of xml.matchAll(/<Key>([^<]+)<\/Key>/g)) keys.add(m[1]!);
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? /<NextContinuationToken>([^<]+)</.exec(xml)?.[1] : undefined;
  } while (token);
  return keys;
}

/** Removes objects (the test's own cleanup of files the API knowingly left behind). */
export async function removeObjects(bucket: string, keys: Iterable<string>): Promise<void> {
  for (const key of keys) {
    const response = await s3().fetch(`${process.env.AWS_ENDPOINT_URL_S3}/${bucket}/${key}`, { method: 'DELETE' });
    if (!response.ok && response.status !== 404) throw new Error(`DeleteObject ${key} failed: ${response.status}`);
  }
}

/**
 * Removes every ticket (with its followups, attachments, refs and files), the ticket counts and the
 * change feed's events (as their retention would): a whole, smaller state, so that table reads stay
 * fast. Users, queues and custom fields stay. The
 * stream still carries the removed tickets' records: drain it first, and again after (their REMOVE
 * records then find nothing counted).
 */
export async function removeTickets(dynamo: DynamoDB, table: string, bucket: string, state: State): Promise<void> {
  const doomed = [...state.items.values()].filter((i) =>
    /^(?:(?:TICKET|COUNTS|COUNTED|LISTED|FOLLOWUP|ATTACHMENT)#|EVENTS(?:_LATE)?$)/.test(String(i.PK)),
  );
  for (const [TableName, of] of [
    [table, doomed.filter((item) => item.SK !== undefined)],
    [listingsTableOf(table), doomed.filter((item) => item.SK === undefined)],
  ] as const) {
    for (let i = 0; i < of.length; i += 25) {
      let pending: unknown[] = of.slice(i, i + 25).map((item) => ({
        DeleteRequest: { Key: item.SK === undefined ? { PK: item.PK } : { PK: item.PK, SK: item.SK } },
      }));
      while (pending.length) {
        const out = await dynamo.send(new BatchWriteCommand({ RequestItems: { [TableName]: pending as never } }));
        pending = out.UnprocessedItems?.[TableName] ?? [];
      }
    }
  }
  await removeObjects(bucket, state.objects);
}

/** The cleanup records (shared/store/file-cleanups.ts): files the sweeper will delete. */
export function pendingCleanups(state: State): { SK: string; object_keys: string[] }[] {
  return [...state.items.values()].filter((i) => i.PK === 'FILE_CLEANUPS') as { SK: string; object_keys: string[] }[];
}

/** Objects under `attachments/` that neither an attachment record nor a cleanup record names. */
export function orphanFiles(state: State): string[] {
  const referenced = new Set(
    [...state.items.values()].filter((i) => i.type === 'attachment').map((i) => String(i.object_key)),
  );
  for (const c of pendingCleanups(state)) c.object_keys.forEach((k) => referenced.add(k));
  return [...state.objects].filter((k) => !referenced.has(k));
}

/** What kind of record an item is, for diffs. */
export function category(item: Item): string {
  const pk = String(item.PK);
  const sk = String(item.SK);
  if (pk === 'COUNTER') return 'counter';
  if (pk.startsWith('COUNTS#') || pk.startsWith('COUNTED#')) return 'counts';
  if (pk.startsWith('LISTED#')) return sk === 'PAGE' ? 'page-snapshot' : item.SK === undefined ? 'listing' : 'retired';
  if (pk.startsWith('FOLLOWUP#') || pk.startsWith('ATTACHMENT#'))
    return `ref:${pk.slice(0, pk.indexOf('#')).toLowerCase()}`;
  if (pk.startsWith('TICKET#')) return String(item.type);
  if (pk === 'QUEUES') return sk.startsWith('SLUG#') ? 'queue-slug' : 'queue';
  if (pk === 'USERS') return 'user-summary';
  if (pk.startsWith('USER#')) return 'user';
  if (pk === 'CUSTOM_FIELDS') return 'custom-field';
  if (pk === 'FILE_CLEANUPS') return 'file-cleanup';
  if (pk === 'EVENTS_LATE') return 'late-event-mark';
  if (pk.startsWith('DELETED#')) return `deletion:${pk.split('#')[1]!.toLowerCase()}`;
  return `other:${pk}`;
}

export interface Diff {
  added: string[];
  removed: string[];
  changed: string[];
  objectsAdded: string[];
  objectsRemoved: string[];
}

export function diff(before: State, after: State): Diff {
  const d: Diff = { added: [], removed: [], changed: [], objectsAdded: [], objectsRemoved: [] };
  for (const [key, item] of after.items) {
    const old = before.items.get(key);
    if (!old) d.added.push(key);
    else if (stable(old) !== stable(item)) d.changed.push(key);
  }
  for (const key of before.items.keys()) if (!after.items.has(key)) d.removed.push(key);
  d.objectsAdded = [...after.objects].filter((k) => !before.objects.has(k));
  d.objectsRemoved = [...before.objects].filter((k) => !after.objects.has(k));
  return d;
}

/**
 * What a write did, independent of ids: records added, removed and changed by kind, and files added
 * and removed. Id counters, ticket counts and listing records are left out (a count block is added
 * or changed depending on where ids fall); the invariants check them instead. So are late-event
 * marks: the stream consumer writes one only for an event it writes late, which timing decides.
 */
export function signature(before: State, after: State): string[] {
  const d = diff(before, after);
  const of = (action: string, keys: string[], state: State) =>
    keys
      .map((k) => `${action} ${category(state.items.get(k)!)}`)
      .filter((s) => !/ (counter|counts|listing|late-event-mark)$/.test(s));
  return [
    ...of('added', d.added, after),
    ...of('removed', d.removed, before),
    ...of('changed', d.changed, after),
    ...d.objectsAdded.map(() => 'added file'),
    ...d.objectsRemoved.map(() => 'removed file'),
  ].sort();
}

const pad = (n: number) => String(n).padStart(12, '0');

/**
 * Everything that must hold between records whatever the history of writes and failures: the GSI
 * keys of each ticket's items, the refs of followups and attachments, the ticket counts (once the
 * stream is drained), queue slugs, user pairs, merge pointers, and one file per attachment record
 * and no other. Returns the violations (empty when the state is whole).
 */
export function invariantViolations(state: State): string[] {
  const problems: string[] = [];
  const items = [...state.items.values()];
  const byType = (t: string) => items.filter((i) => String(i.PK).startsWith('TICKET#') && i.type === t);
  const tickets = new Map(byType('ticket').map((t) => [t.id as number, t]));
  // A ticket item may hold its opening followup (shared/store/items.ts `ticketItem`): a followup too.
  const inline = [...tickets.values()].flatMap((t): Item[] =>
    t.opening ? [{ ...(t.opening as Item), ticket: t.id, PK: t.PK }] : [],
  );
  const followups = [...byType('followup'), ...inline];
  const attachments = byType('attachment');

  for (const t of tickets.values()) {
    const pk = `TICKET#${t.id}`;
    const children = items.filter((i) => i.PK === pk && (i.type === 'followup' || i.type === 'attachment'));
    for (const i of [t, ...children]) {
      if (i.GSI2PK !== `TICKETS#STATUS#${t.status}`)
        problems.push(`${i.PK}|${i.SK}: GSI2PK ${String(i.GSI2PK)}, ticket status ${String(t.status)}`);
      if (i.GSI1SK !== `${pad(t.id as number)}#${i.SK}`) problems.push(`${i.PK}|${i.SK}: GSI1SK ${String(i.GSI1SK)}`);
    }
  }
  for (const f of followups) {
    if (`TICKET#${f.ticket}` !== f.PK) problems.push(`followup ${f.id}: ticket ${String(f.ticket)} in ${String(f.PK)}`);
    if (!tickets.has(f.ticket as number))
      problems.push(`followup ${f.id}: its ticket ${String(f.ticket)} does not exist`);
  }
  const followupIds = new Map(followups.map((f) => [f.id as number, f]));
  for (const a of attachments) {
    if (`TICKET#${a.ticket}` !== a.PK)
      problems.push(`attachment ${a.id}: ticket ${String(a.ticket)} in ${String(a.PK)}`);
    const f = followupIds.get(a.followup as number);
    if (!f || f.ticket !== a.ticket)
      problems.push(`attachment ${a.id}: followup ${String(a.followup)} not on ticket ${String(a.ticket)}`);
  }

  // Refs: one per followup and attachment, saying where it is.
  const refs = (kind: string) =>
    new Map(items.filter((i) => String(i.PK).startsWith(`${kind.toUpperCase()}#`)).map((r) => [r.id as number, r]));
  const compare = (
    name: string,
    actual: Map<number, Item>,
    expected: Map<number, string>,
    describe: (r: Item) => string,
  ) => {
    for (const [id, value] of expected)
      if (!actual.has(id) || describe(actual.get(id)!) !== value)
        problems.push(
          `${name} ref ${id}: ${actual.has(id) ? describe(actual.get(id)!) : 'missing'}, expected ${value}`,
        );
    for (const id of actual.keys()) if (!expected.has(id)) problems.push(`${name} ref ${id} has no record`);
  };
  compare(
    'followup',
    refs('followup'),
    new Map(followups.map((f) => [f.id as number, `${f.ticket}`])),
    (r) => `${r.ticket}`,
  );
  compare(
    'attachment',
    refs('attachment'),
    new Map(attachments.map((a) => [a.id as number, `${a.ticket}:${a.followup}:${a.filename}`])),
    (r) => `${r.ticket}:${r.followup}:${r.filename}`,
  );

  // Ticket counts (kept from the stream): per block of 1,000 ids, run of 25 and status; totals per
  // status and queue, the same at both ends; each ticket's counted state.
  const counted = new Map<string, number>();
  for (const block of items.filter((i) => i.PK === 'COUNTS#ticket' && String(i.SK).startsWith('BLOCK#'))) {
    const b = Number(String(block.SK).slice('BLOCK#'.length));
    for (const [attribute, value] of Object.entries(block))
      if (/^c\d+_\d$/.test(attribute) && value !== 0) counted.set(`${b}:${attribute}`, value as number);
  }
  const expectedCounts = new Map<string, number>();
  const expectedTotals = new Map<string, number>();
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const t of tickets.values()) {
    const id = t.id as number;
    add(expectedCounts, `${Math.floor(id / 1000)}:c${Math.floor((id % 1000) / 25)}_${t.status}`);
    add(expectedTotals, `s${t.status}`);
    add(expectedTotals, `q${t.queue}`);
    const c = state.items.get(`COUNTED#${id}|COUNTED`);
    if (!c || c.status !== t.status || c.queue !== t.queue || c.version !== (t.version ?? 0))
      problems.push(`ticket ${id}: counted as ${stable(c)}`);
  }
  for (const key of new Set([...counted.keys(), ...expectedCounts.keys()])) {
    if ((counted.get(key) ?? 0) !== (expectedCounts.get(key) ?? 0))
      problems.push(`ticket counts ${key}: ${counted.get(key) ?? 0}, expected ${expectedCounts.get(key) ?? 0}`);
  }
  for (const sk of ['!TOTALS']) {
    const totals = state.items.get(`COUNTS#ticket|${sk}`) ?? {};
    for (const key of new Set([...Object.keys(totals).filter((k) => /^[sq]\d+$/.test(k)), ...expectedTotals.keys()])) {
      if (Number(totals[key] ?? 0) !== (expectedTotals.get(key) ?? 0))
        problems.push(
          `ticket totals ${sk} ${key}: ${String(totals[key] ?? 0)}, expected ${expectedTotals.get(key) ?? 0}`,
        );
    }
  }

  // Listing items (kept from the stream, in the listings table): each live ticket's, with its keys in every view's
  // index (an agent view's carrying the sort values); none of another ticket but tombstones (no index keys).
  const listed = (t: Item): Record<string, { value?: string; sort?: string }> => {
    const assigned = t.assigned_to == null ? 'none' : String(t.assigned_to);
    const sorts: Record<string, string> = {
      created: String(t.created),
      modified: String(t.modified),
      priority: String(t.priority),
      due: t.due_date == null ? '~' : String(t.due_date),
    };
    return {
      queue: { value: String(t.queue) },
      assigned: { value: assigned },
      modified: { sort: sorts.modified },
      created: { sort: sorts.created },
      'all@priority': { sort: sorts.priority },
      'all@due': { sort: sorts.due },
      'status-queue': { value: `${t.status}#${t.queue}` },
      'status-assigned': { value: `${t.status}#${assigned}` },
    };
  };
  for (const t of tickets.values()) {
    const l = state.items.get(`LISTED#${t.id}|${LISTING_ITEM}`);
    for (const [dimension, { value, sort }] of Object.entries(listed(t))) {
      const index = LISTING_INDEXES[dimension as ListingDimension];
      const pk = value === undefined ? `LIST#${dimension}` : `LIST#${dimension}#${value}`;
      const id = pad(t.id as number);
      const sk = sort === undefined ? id : `${sort}#${id}`;
      if (!l || l[index.partitionKey] !== pk || l[index.sortKey] !== sk)
        problems.push(`ticket ${t.id}: listed in ${dimension} as ${stable(l)}`);
    }
    // What the agent views' entries carry: the sort values, the queue and the assignee.
    const due = t.due_date == null ? '~' : String(t.due_date);
    const carried = {
      [LISTING_CARRIED.sorts]: [t.created, t.modified, t.priority, due].map(String).join('#'),
      [LISTING_CARRIED.queue]: String(t.queue),
      [LISTING_CARRIED.assignee]: t.assigned_to == null ? 'none' : String(t.assigned_to),
    };
    if (l && Object.entries(carried).some(([attribute, value]) => l[attribute] !== value))
      problems.push(`ticket ${t.id}: its listing item carries ${stable(l)}`);
    // Its page snapshot: its collection's items as stored (a collection over SNAPSHOT_MAX_BYTES has none).
    const snapshot = state.items.get(`LISTED#${t.id}|PAGE`);
    const unindexed = {
      GSI1PK: undefined,
      GSI1SK: undefined,
      GSI2PK: undefined,
      GSI2SK: undefined,
      GSI3PK: undefined,
      GSI3SK: undefined,
    };
    const entry = (i: Item) => `${String(i.SK)}:${stable({ ...i, ...unindexed })}`;
    const collection = items.filter((i) => i.PK === `TICKET#${t.id}`).map(entry);
    const kept = snapshot && (JSON.parse(String(snapshot.items)) as Item[]).map(entry);
    if (
      snapshot
        ? stable(kept!.sort()) !== stable(collection.sort())
        : JSON.stringify(collection).length < SNAPSHOT_MAX_BYTES
    )
      problems.push(`ticket ${t.id}: page snapshot ${snapshot ? 'is not its collection' : 'missing'}`);
  }
  for (const l of items.filter((i) => String(i.PK).startsWith('LISTED#'))) {
    const indexed = Object.values(LISTING_INDEXES).some((index) => l[index.partitionKey] !== undefined);
    if (!tickets.has(Number(String(l.PK).slice('LISTED#'.length))) && (indexed || l.SK === 'PAGE'))
      problems.push(`${l.PK}|${l.SK ?? LISTING_ITEM}: listed, but the ticket does not exist`);
    if (l.SK !== undefined && l.SK !== 'PAGE') problems.push(`${l.PK}|${l.SK}: a listing record of an earlier version`);
  }

  // Queues: slug claims.
  const queues = items.filter((i) => i.PK === 'QUEUES' && String(i.SK).startsWith('QUEUE#'));
  const slugs = items.filter((i) => i.PK === 'QUEUES' && String(i.SK).startsWith('SLUG#'));
  for (const q of queues) {
    if (!slugs.some((s) => s.SK === `SLUG#${q.slug}` && s.id === q.id))
      problems.push(`queue ${q.id}: slug ${String(q.slug)} not claimed`);
  }
  for (const s of slugs) {
    if (!queues.some((q) => q.id === s.id && `SLUG#${q.slug}` === s.SK))
      problems.push(`${s.SK}: claimed for queue ${String(s.id)}, which does not have it`);
  }
  for (const t of tickets.values())
    if (!queues.some((q) => q.id === t.queue)) problems.push(`ticket ${t.id}: queue ${String(t.queue)} does not exist`);

  // Users: the full record and the summary come in pairs.
  const users = items.filter((i) => String(i.PK).startsWith('USER#'));
  const summaries = items.filter((i) => i.PK === 'USERS');
  for (const u of users)
    if (!summaries.some((s) => s.id === u.id && s.username === u.username))
      problems.push(`user ${String(u.username)}: no summary`);
  for (const s of summaries)
    if (!users.some((u) => u.id === s.id && u.username === s.username))
      problems.push(`user summary ${String(s.id)}: no user`);

  // Merge pointers live in the target's collection.
  for (const t of tickets.values()) {
    if (t.merged_to == null || t.merged_to === t.id || !tickets.has(t.merged_to as number)) continue;
    if (!state.items.has(`TICKET#${t.merged_to}|MERGED#${pad(t.id as number)}`))
      problems.push(`ticket ${t.id}: merged into ${String(t.merged_to)} without a pointer`);
  }
  for (const m of items.filter((i) => i.type === 'merged')) {
    const source = tickets.get(m.source as number);
    if (!source || `TICKET#${source.merged_to}` !== m.PK)
      problems.push(`${m.PK}|${m.SK}: source ${String(m.source)} is not merged into it`);
  }

  // Files: one object per attachment record; any other is named by a cleanup record (which the
  // sweeper finishes), never left unaccounted for; and no cleanup record names a live file.
  const referenced = new Set(attachments.map((a) => String(a.object_key)));
  const toClean = new Set(pendingCleanups(state).flatMap((c) => c.object_keys));
  for (const key of referenced) if (!state.objects.has(key)) problems.push(`attachment file ${key} is missing`);
  for (const key of referenced)
    if (toClean.has(key)) problems.push(`attachment file ${key} is named by a cleanup record`);
  for (const key of orphanFiles(state)) problems.push(`orphan file ${key}`);
  return problems;
}
