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

/** The pages measured at each size; past MAX_PAGE_DEPTH tickets, also the cursor page after the deepest numbered one. */
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
  const pages = { ...LIST_PAGES, ...(cursor ? { [`page ${deepest}`]: `/api/tickets/?page=${deepest}`, 'cursor page after it': cursor.pathname + cursor.search } : {}) };
  for (const [name, path] of Object.entries(pages)) {
    const reply = await probe.get(path); // warm
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    const { requests, readUnits } = await probe.count(() => probe.get(path));
    costs[name] = { requests, readUnits: Math.round(readUnits * 100) / 100, p50: await probe.p50(() => probe.get(path)) };
  }
  return costs;
}
