/**
 * The listing dimensions of the filtered lists (docs/data-model.md, "Filtered lists"): which views a
 * ticket is listed in and in which orders. Without imports of its own, so that store/keys.ts, which
 * every function bundles, can name them without bringing the list query's parser along.
 */
/**
 * The agent views: status × queue, status × assignee, status × queue × assignee (a partition per combination of
 * values).
 */
export const AGENT_VIEWS = ['status-queue', 'status-assigned', 'status-queue-assigned'] as const;
export type AgentView = (typeof AGENT_VIEWS)[number];
/** The orders a listing partition is sorted by besides id (`due`: `due_date`, none last ascending). */
export const LISTING_ORDERS = ['created', 'modified', 'priority', 'due'] as const;
export type ListingOrder = 'id' | (typeof LISTING_ORDERS)[number];

/**
 * The listing dimensions (store/listings.ts keeps one record per ticket in each): by filter value in
 * id order (`queue`, `assigned`, `priority`, the agent views), every ticket in one partition by a
 * time (`created`, `modified`) or by priority or due date (`all@priority`, `all@due`), and each agent
 * view in every other order (`<view>@<order>`).
 */
// Built by a call marked pure: a bundle that names none of them (every function bundles keys.ts) leaves it out.
export const LISTED_DIMENSIONS = /* @__PURE__ */ (() =>
  [
    'queue',
    'assigned',
    'priority',
    'modified',
    'created',
    'all@priority',
    'all@due',
    ...AGENT_VIEWS,
    ...AGENT_VIEWS.flatMap((view) => LISTING_ORDERS.map((order) => `${view}@${order}` as const)),
  ] as const)();
export type ListedDimension = (typeof LISTED_DIMENSIONS)[number];

/** What a dimension's partitions are sorted by: id alone, or a value then id. */
export function orderOf(dimension: ListedDimension): ListingOrder {
  if (dimension === 'created' || dimension === 'modified') return dimension;
  const at = dimension.indexOf('@');
  return at < 0 ? 'id' : (dimension.slice(at + 1) as ListingOrder);
}

/** Whether a dimension has one partition for every ticket (no filter value in its partition key). */
export const isWholeTableDimension = (dimension: ListedDimension) =>
  dimension === 'created' || dimension === 'modified' || dimension.startsWith('all@');
