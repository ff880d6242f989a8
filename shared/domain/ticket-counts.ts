/**
 * Ticket counts kept from the table's stream (consumer/ticket-counts.ts applies them): per status,
 * queue, assignee and priority (the totals), per agent view (status × queue, × assignee, × both: an
 * item per view partition), and per run of 25 ticket ids, which is what a list page needs for its
 * `count` and to find where page N starts. Pure rules: from what the counts hold of each ticket and what the stream
 * says it is now, the changes to apply, so that a duplicate, late or replayed record changes nothing.
 */
import { arrivalsAttribute } from './queue-delete';

/** Ticket ids per count block item, and per sub-block (one count per status) inside it. */
export const TICKET_BLOCK = 1000;
export const TICKET_SUB_BLOCK = 25;

/** What the counts hold of one ticket. A deleted ticket keeps a tombstone (`DELETED_VERSION`). */
export interface Counted extends CountedState {
  /** The ticket item's `version` this state comes from. */
  version: number;
}

/**
 * What a ticket is counted by: status and queue (every count), and for the agent views' counts its
 * assignee (`none`: nobody) and priority. A state counted before those were kept has neither: it
 * was counted without them, so it is uncounted without them too.
 */
export interface CountedState {
  status: number;
  queue: number;
  assigned?: string;
  priority?: number;
}

/** Later than any version: a deleted ticket is never counted again by a late record. */
export const DELETED_VERSION = Number.MAX_SAFE_INTEGER;

/** What one stream record says of a ticket: its state at `version`, or deleted (`state` absent). */
export interface TicketRecord {
  ticket: number;
  version: number;
  state?: CountedState;
  /** The write of this version took a reservation in the ticket's queue (a create, a move: domain/queue-delete.ts). */
  reserved?: boolean;
}

export interface CountChanges {
  /** The new state of each ticket to store, with the state it replaces (undefined: never counted). */
  counted: { ticket: number; next: Counted; previous: Counted | undefined }[];
  /**
   * Deltas of the totals: `s<status>`, `q<queue>`, `a<assignee>`, `p<priority>` and `arr<queue>` (writes that reserved
   * in the queue, counted once each).
   */
  totals: Map<string, number>;
  /** Deltas per agent view count item (by viewCountId), per attribute `s<status>`. */
  views: Map<string, { item: ViewCountItem; deltas: Map<string, number> }>;
  /** Deltas per block number, per attribute `c<sub-block>_<status>`. */
  blocks: Map<number, Map<string, number>>;
}

/**
 * The agent views' counts, one small item per view partition without its status: status × queue
 * (`sq`, by queue), status × assignee (`sa`, by assignee), status × queue × assignee (`sqa`, by
 * queue and assignee), each holding `s<status>`. Kept apart from the totals because their number
 * grows with queues × assignees: in the totals they would make every count transaction and every
 * list page's read grow with the helpdesk (and, past 400 KB, stop the counts).
 */
export type CountView = 'sq' | 'sa' | 'sqa';
export interface ViewCountItem {
  view: CountView;
  queue?: string;
  assignee?: string;
}

/** One name per view count item (store/keys.ts spells its key). */
export const viewCountId = ({ view, queue, assignee }: ViewCountItem) => `${view}#${queue ?? ''}#${assignee ?? ''}`;

/** The view count items a ticket in `state` counts in (none for a state counted before assignees were). */
export function viewCountItems(state: CountedState): ViewCountItem[] {
  if (state.assigned === undefined) return [];
  const queue = String(state.queue);
  return [
    { view: 'sq', queue },
    { view: 'sa', assignee: state.assigned },
    { view: 'sqa', queue, assignee: state.assigned },
  ];
}

export const statusAttribute = (status: number) => `s${status}`;

const add = (map: Map<string, number>, key: string, delta: number) => map.set(key, (map.get(key) ?? 0) + delta);

export const subBlockAttribute = (id: number, status: number) =>
  `c${Math.floor((id % TICKET_BLOCK) / TICKET_SUB_BLOCK)}_${status}`;

/** The latest record per ticket (a deletion is the latest of all). */
export function latestPerTicket(records: TicketRecord[]): TicketRecord[] {
  const latest = new Map<number, TicketRecord>();
  for (const r of records) {
    const version = r.state ? r.version : DELETED_VERSION;
    const seen = latest.get(r.ticket);
    if (!seen || version > (seen.state ? seen.version : DELETED_VERSION)) latest.set(r.ticket, { ...r, version });
  }
  return [...latest.values()];
}

/** Per ticket, the versions whose write took a reservation, with the queue reserved in (repeated records once). */
function reservingWritesPerTicket(records: TicketRecord[]): Map<number, Map<number, number>> {
  const writes = new Map<number, Map<number, number>>();
  for (const r of records) {
    if (!r.reserved || !r.state) continue;
    let versions = writes.get(r.ticket);
    if (!versions) writes.set(r.ticket, (versions = new Map<number, number>()));
    versions.set(r.version, r.state.queue);
  }
  return writes;
}

/**
 * The changes that bring the counts from `counted` (what they hold now, by ticket) to what the
 * records say. A record not newer than what is counted is ignored: stream records may come twice,
 * late, or after a retry of a batch that had partly applied.
 */
export function countChanges(records: TicketRecord[], counted: Map<number, Counted>): CountChanges {
  const changes: CountChanges = { counted: [], totals: new Map(), blocks: new Map(), views: new Map() };
  const blockDeltas = (id: number) => {
    const block = Math.floor(id / TICKET_BLOCK);
    let deltas = changes.blocks.get(block);
    if (!deltas) changes.blocks.set(block, (deltas = new Map<string, number>()));
    return deltas;
  };
  const count = (id: number, state: CountedState, delta: number) => {
    for (const attribute of totalsAttributes(state)) add(changes.totals, attribute, delta);
    for (const item of viewCountItems(state)) {
      const id = viewCountId(item);
      let view = changes.views.get(id);
      if (!view) changes.views.set(id, (view = { item, deltas: new Map<string, number>() }));
      add(view.deltas, statusAttribute(state.status), delta);
    }
    add(blockDeltas(id), subBlockAttribute(id, state.status), delta);
  };
  const reservingWrites = reservingWritesPerTicket(records);
  for (const record of latestPerTicket(records)) {
    const previous = counted.get(record.ticket);
    if (previous && previous.version >= record.version) continue;
    const live = previous && previous.version !== DELETED_VERSION ? previous : undefined;
    if (live) count(record.ticket, live, -1);
    if (record.state) count(record.ticket, record.state, +1);
    // Every write that reserved and is newer than the counted state, not only the latest: a create
    // moved on at once is one arrival too. The counted state moves past them in the same
    // transaction, so each is counted once.
    for (const [version, queue] of reservingWrites.get(record.ticket) ?? []) {
      if (!previous || version > previous.version) add(changes.totals, arrivalsAttribute(queue), +1);
    }
    const next: Counted = record.state
      ? { ...definedOf(record.state), version: record.version }
      : { status: 0, queue: 0, version: DELETED_VERSION };
    changes.counted.push({ ticket: record.ticket, next, previous });
  }
  for (const [key, delta] of changes.totals) if (delta === 0) changes.totals.delete(key);
  for (const [block, deltas] of changes.blocks) {
    for (const [key, delta] of deltas) if (delta === 0) deltas.delete(key);
    if (!deltas.size) changes.blocks.delete(block);
  }
  for (const [id, { deltas }] of changes.views) {
    for (const [key, delta] of deltas) if (delta === 0) deltas.delete(key);
    if (!deltas.size) changes.views.delete(id);
  }
  return changes;
}

const definedOf = (state: CountedState): CountedState =>
  Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined)) as unknown as CountedState;

/**
 * The totals attributes a ticket in `state` counts in: `s<status>`, `q<queue>`, and, where the
 * state has them, `a<assignee>` and `p<priority>` (domain/ticket-list-query.ts countSourceOf reads
 * them): bounded by statuses + queues + assignees + priorities. The agent views' counts are in
 * items of their own (viewCountItems).
 */
export function totalsAttributes(state: CountedState): string[] {
  const { status: s, queue: q, assigned: a, priority: p } = state;
  const attributes = [statusAttribute(s), `q${q}`];
  if (p !== undefined) attributes.push(`p${p}`);
  if (a !== undefined) attributes.push(`a${a}`);
  return attributes;
}

/**
 * The agent views' counts as an earlier version kept them on the totals items
 * (`sq<status>_<queue>`, `sa<status>_<assignee>`, `sqa<status>_<queue>_<assignee>`): the view
 * count item and status each belongs to, for the upgrade that moves them (consumer/ticket-counts.ts
 * moveViewCountsOutOfTotals). Undefined for any other attribute.
 */
export function legacyViewCount(attribute: string): { item: ViewCountItem; status: number } | undefined {
  const m = /^(sqa|sq|sa)(\d)_(\d+|none)(?:_(\d+|none))?$/.exec(attribute);
  if (!m) return undefined;
  const [, view, status, first, second] = m;
  if (view === 'sqa' && second !== undefined)
    return { item: { view, queue: first!, assignee: second }, status: Number(status) };
  if (view === 'sq' && second === undefined && first !== 'none')
    return { item: { view, queue: first! }, status: Number(status) };
  if (view === 'sa' && second === undefined) return { item: { view, assignee: first! }, status: Number(status) };
  return undefined;
}

/**
 * The actions of one count transaction: a Put per ticket's counted state, an Update per block
 * item and per view count item, and the totals item.
 */
export const transactionActions = (changes: CountChanges) =>
  changes.counted.length + changes.blocks.size + changes.views.size + (changes.totals.size ? 1 : 0);

/**
 * The tickets (in id order) cut into runs whose count transaction fits `maxActions`: each ticket
 * adds its counted state, and the block item and view count items of its state before and after
 * that the run does not touch yet (the totals item always counted).
 */
export function chunkMoves(
  moves: { ticket: number; previous?: CountedState; next?: CountedState }[],
  maxActions: number,
): number[][] {
  const result: number[][] = [];
  let chunk: number[] = [];
  let shared = new Set<string>();
  for (const move of [...moves].sort((a, b) => a.ticket - b.ticket)) {
    const touched = [
      `block#${Math.floor(move.ticket / TICKET_BLOCK)}`,
      ...[move.previous, move.next].flatMap((s) => (s && s.status !== 0 ? viewCountItems(s).map(viewCountId) : [])),
    ];
    const added = new Set(touched.filter((t) => !shared.has(t))).size;
    if (chunk.length && chunk.length + 1 + shared.size + added + 1 > maxActions) {
      result.push(chunk);
      chunk = [];
      shared = new Set();
    }
    chunk.push(move.ticket);
    for (const t of touched) shared.add(t);
  }
  if (chunk.length) result.push(chunk);
  return result;
}

/** Live tickets per sub-block (by its first id) of one block item, only the given statuses. */
export function subBlockCounts(
  block: number,
  attributes: Record<string, unknown>,
  statuses?: Set<number>,
): { start: number; count: number }[] {
  const counts = new Map<number, number>();
  for (const [attribute, value] of Object.entries(attributes)) {
    const m = /^c(\d+)_(\d)$/.exec(attribute);
    if (!m || (statuses && !statuses.has(Number(m[2])))) continue;
    const start = block * TICKET_BLOCK + Number(m[1]) * TICKET_SUB_BLOCK;
    counts.set(start, (counts.get(start) ?? 0) + Math.max(0, Number(value)));
  }
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([start, count]) => ({ start, count }))
    .sort((a, b) => a.start - b.start);
}

/** The count of the given statuses (all when undefined) in a totals item or a view count item (`s<status>`). */
export function totalOf(totals: Record<string, unknown> | undefined, statuses?: Set<number>): number {
  let total = 0;
  for (const [attribute, value] of Object.entries(totals ?? {})) {
    const m = /^s(\d)$/.exec(attribute);
    if (m && (!statuses || statuses.has(Number(m[1])))) total += Math.max(0, Number(value));
  }
  return total;
}
