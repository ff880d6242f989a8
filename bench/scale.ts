/**
 * List pages as the table grows: the same pages (the first, a numbered one near the start, the last,
 * the first of one status, and a cursor page) measured at each size, with their DynamoDB requests
 * and read units (one request, counted on the wire) and their p50 latency. The largest size is
 * simulated (bench/seed.ts `simulateTickets`): the counts of millions of tickets, with real tickets
 * only where these pages read.
 */

import { DEFAULT_PAGE_SIZE, MAX_PAGE_DEPTH } from '../shared/domain/pagination';

export interface PageCost {
  requests: number;
  readUnits: number;
  p50: number;
}

export type ListCosts = Record<string, PageCost>;

/**
 * The pages measured at each size; past MAX_PAGE_DEPTH tickets, also the cursor page after the deepest numbered one.
 */
export const LIST_PAGES: Record<string, string> = {
  'page 1': '/api/tickets/',
  'page 5': '/api/tickets/?page=5',
  'last page': '/api/tickets/?page=last',
  'status 3, page 1': '/api/tickets/?status=3',
};

/** What the benchmarks read of the API's JSON bodies: a ticket, or a page of them. */
export interface ApiBody {
  id: number;
  title: string;
  count: number;
  next: string | null;
  previous: string | null;
  results: unknown[];
}

/** One API reply: its status and JSON body (undefined when empty). */
export interface ApiReply {
  status: number;
  body: ApiBody;
}

export interface ScaleProbe {
  /** Sends one GET and answers its status and body. */
  get(path: string): Promise<ApiReply>;
  /** Resets the wire counters and answers what one call of `run` cost. */
  count(run: () => Promise<unknown>): Promise<{ requests: number; readUnits: number }>;
  /** p50 latency of `iterations` sequential calls. */
  p50(run: () => Promise<unknown>): Promise<number>;
}

export async function measureListCosts(probe: ScaleProbe): Promise<ListCosts> {
  const costs: ListCosts = {};
  const deepest = Math.floor(MAX_PAGE_DEPTH / DEFAULT_PAGE_SIZE) + 1;
  const deep = await probe.get(`/api/tickets/?page=${deepest}`);
  const cursor = deep.status === 200 && /[?&]cursor=/.test(deep.body.next ?? '') ? new URL(deep.body.next!) : undefined;
  const pages = {
    ...LIST_PAGES,
    ...(cursor
      ? {
          [`page ${deepest}`]: `/api/tickets/?page=${deepest}`,
          'cursor page after it': cursor.pathname + cursor.search,
        }
      : {}),
  };
  for (const [name, path] of Object.entries(pages)) {
    const reply = await probe.get(path); // warm
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    const { requests, readUnits } = await probe.count(() => probe.get(path));
    costs[name] = {
      requests,
      readUnits: Math.round(readUnits * 100) / 100,
      p50: await probe.p50(() => probe.get(path)),
    };
  }
  return costs;
}

/**
 * The filtered and reordered list pages (issue 15 item 4), measured at each size like LIST_PAGES but
 * held to their own floor (FILTERED_PAGE_FLOORS in report.ts): one Query of the filter's index for
 * the page's ids, then one Query per ticket of its collection.
 */
export function filteredPages(queue: number, user: number): Record<string, string> {
  return {
    [`queue=${queue}`]: `/api/tickets/?queue=${queue}`,
    [`assigned_to=${user}`]: `/api/tickets/?assigned_to=${user}`,
    'priority=2': '/api/tickets/?priority=2',
    submitter_email: '/api/tickets/?submitter_email=customer7%40example.com',
    updated_since: '/api/tickets/?updated_since=2020-01-01T00:00:00Z',
    'created_since, -created': '/api/tickets/?created_since=2020-01-01T00:00:00Z&ordering=-created',
    'ordering=-id': '/api/tickets/?ordering=-id',
    'ordering=-modified': '/api/tickets/?ordering=-modified',
  };
}

/**
 * Pages that check their filters on every ticket read, in id order with only time filters (the five
 * priority partitions merged, docs/data-model.md "Filtered lists"): a time every seeded ticket is
 * after, so that each page reads its whole budget.
 */
export function checkedIdPages(): Record<string, string> {
  return {
    'created_since, -id': '/api/tickets/?created_since=2020-01-01T00:00:00Z&ordering=-id',
    'status × updated_since, id': '/api/tickets/?status=1&updated_since=2020-01-01T00:00:00Z&ordering=id',
  };
}

/** Each filtered page measured, and the page after it (its `next` cursor) as `… next`. */
export async function measureFilteredCosts(probe: ScaleProbe, pages: Record<string, string>): Promise<ListCosts> {
  const costs: ListCosts = {};
  for (const [name, first] of Object.entries(pages)) {
    const reply = await probe.get(first);
    if (reply.status !== 200) throw new Error(`${first}: ${reply.status} ${JSON.stringify(reply.body)}`);
    const next = reply.body.next ? new URL(reply.body.next) : undefined;
    for (const [label, path] of [[name, first], ...(next ? [[`${name} next`, next.pathname + next.search]] : [])] as [
      string,
      string,
    ][]) {
      await probe.get(path); // warm
      const { requests, readUnits } = await probe.count(() => probe.get(path));
      costs[label] = {
        requests,
        readUnits: Math.round(readUnits * 100) / 100,
        p50: await probe.p50(() => probe.get(path)),
      };
    }
  }
  return costs;
}

/** A filter's whole list, followed page by page, against the tickets the table holds that match it. */
export interface FilterCheck {
  expected: number;
  listed: number;
  exact: boolean;
  pages: number;
  requests: number;
}

/** Follows every page of `path` (100 a page) and compares the ids listed, in order, with `expected`. */
export async function checkFilter(probe: ScaleProbe, path: string, expected: number[]): Promise<FilterCheck> {
  const listed: number[] = [];
  let pages = 0;
  const { requests } = await probe.count(async () => {
    let url: string | null = `${path}${path.includes('?') ? '&' : '?'}page_size=100`;
    while (url) {
      const reply = await probe.get(url);
      if (reply.status !== 200) throw new Error(`${url}: ${reply.status} ${JSON.stringify(reply.body)}`);
      listed.push(...(reply.body.results as { id: number }[]).map((t) => t.id));
      pages++;
      const next: string | null = reply.body.next;
      url = next ? new URL(next).pathname + new URL(next).search : null;
    }
  });
  return {
    expected: expected.length,
    listed: listed.length,
    exact: listed.length === expected.length && listed.every((id, i) => id === expected[i]),
    pages,
    requests,
  };
}
