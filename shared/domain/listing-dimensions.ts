/**
 * The listing dimensions of the filtered lists (docs/data-model.md, "Filtered lists"): which views a
 * ticket is listed in and in which orders. Without imports of its own, so that store/keys.ts, which
 * every function bundles, can name them without bringing the list query's parser along.
 */
/**
 * The agent views: status × queue, status × assignee (a partition per combination of values). Each record carries the
 * other one's value too (a status × queue record its assignee, a status × assignee record its queue), so that status ×
 * queue × assignee is one of them read whole and kept by that value (issue 33).
 */
export const AGENT_VIEWS = ['status-queue', 'status-assigned'] as const;
export type AgentView = (typeof AGENT_VIEWS)[number];
/** The orders a listing partition is sorted by besides id (`due`: `due_date`, none last ascending). */
export const LISTING_ORDERS = ['created', 'modified', 'priority', 'due'] as const;
export type ListingOrder = 'id' | (typeof LISTING_ORDERS)[number];

/**
 * The listing dimensions (store/listings.ts keeps one record per ticket in each): by filter value in
 * id order (`queue`, `assigned`, the agent views: theirs carry the ticket's sort values after its id),
 * every ticket in one partition by a time (`created`, `modified`) or by priority or due date
 * (`all@priority`, `all@due`).
 */
// Built by a call marked pure: a bundle that names none of them (every function bundles keys.ts) leaves it out.
export const LISTED_DIMENSIONS = /* @__PURE__ */ (() =>
  ['queue', 'assigned', 'modified', 'created', 'all@priority', 'all@due', ...AGENT_VIEWS] as const)();
export type ListedDimension = (typeof LISTED_DIMENSIONS)[number];

/**
 * An agent view in another order than id (`<view>@<order>`): no records of its own since issue 33, a list source
 * that reads the view's id-order partitions whole and sorts them by the values their records carry.
 */
export type SortedView = `${AgentView}@${(typeof LISTING_ORDERS)[number]}`;
/**
 * What a list reads: a stored dimension, an agent view sorted from its id-order records, or `priority`: the tickets of
 * one priority in id order, a range of `all@priority` (its sort keys `<priority>#<id:12>`).
 */
export type ListingSourceDimension = ListedDimension | SortedView | 'priority';

/** What a dimension's partitions are sorted by: id alone, or a value then id. */
export function orderOf(dimension: ListingSourceDimension): ListingOrder {
  if (dimension === 'created' || dimension === 'modified') return dimension;
  const at = dimension.indexOf('@');
  return at < 0 ? 'id' : (dimension.slice(at + 1) as ListingOrder);
}

/** The agent view a sorted view reads (its id-order partitions), or undefined for a stored dimension. */
export function sortedViewOf(dimension: ListingSourceDimension): AgentView | undefined {
  const [view, order] = dimension.split('@');
  return order !== undefined && view !== 'all' ? (view as AgentView) : undefined;
}

/** The stored dimension whose partitions a list source reads (a sorted view: its agent view's; `priority`: ranges). */
export const storedDimensionOf = (dimension: ListingSourceDimension): ListedDimension =>
  dimension === 'priority' ? 'all@priority' : (sortedViewOf(dimension) ?? (dimension as ListedDimension));

/** Whether a dimension has one partition for every ticket (no filter value in its partition key). */
export const isWholeTableDimension = (dimension: ListingSourceDimension) =>
  dimension === 'created' || dimension === 'modified' || dimension.startsWith('all@');

/**
 * Whether a dimension is an agent view's (its records carry the ticket's sort values after its id, then the other
 * view's value).
 */
export const isAgentView = (dimension: string): dimension is AgentView =>
  (AGENT_VIEWS as readonly string[]).includes(dimension);
