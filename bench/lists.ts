/**
 * The filtered lists at each size (issue 24 items 1 and 2; `npm run bench -- --lists`): every
 * combination of filters in every ordering, its first page's DynamoDB requests and read units, its
 * `count`, and, followed page by page, whether it lists exactly the tickets that match, in order,
 * compared with the seeded tickets filtered and sorted here (independently of the API's code).
 */
import { checkFilter, type FilterCheck, type ScaleProbe } from './scale';

/** A ticket as seeded, what the filters and orderings look at. */
export interface SeededTicket {
  id: number;
  status: number;
  queue: number;
  assigned_to: number | null;
  priority: number;
  email: string | null;
  created: string;
  modified: string;
  due_date: string | null;
}

/** What a combination asks for (`status` as the client sends it: numbers or names). */
export interface Combination {
  name: string;
  status?: string;
  queue?: number;
  assigned?: number | 'none';
  priority?: number;
  email?: string;
  createdSince?: string;
  updatedSince?: string;
  /** An agent view: its count is kept, and its pages must be flat (at most 2 + statuses requests). */
  view: boolean;
}

export const LIST_ORDERINGS = ['id', 'created', 'modified', 'priority', 'due_date'].flatMap((o) => [o, `-${o}`]);

const STATUS_NAMES: Record<string, number> = { open: 1, reopened: 2, resolved: 3, closed: 4, duplicate: 5 };

/** The combinations measured: the agent views (several statuses, names), then the others. */
export function combinations(queue: number, user: number, since: { created: string; updated: string }): Combination[] {
  return [
    { name: 'status × queue', status: '1', queue, view: true },
    { name: 'statuses × queue 1', status: '1,2', queue: 1, view: true },
    { name: 'status (name) × assignee', status: 'open', assigned: user, view: true },
    { name: 'statuses × unassigned', status: '1,3', assigned: 'none', view: true },
    { name: 'status × queue × assignee', status: '1', queue: 1, assigned: user, view: true },
    { name: 'statuses × queue × unassigned', status: 'open,closed', queue, assigned: 'none', view: true },
    { name: 'queue', queue, view: false },
    { name: 'unassigned', assigned: 'none', view: false },
    { name: 'priority', priority: 2, view: false },
    { name: 'submitter_email', email: 'customer7@example.com', view: false },
    { name: 'created_since', createdSince: since.created, view: false },
    { name: 'updated_since', updatedSince: since.updated, view: false },
    { name: 'status × priority', status: '3', priority: 1, view: false },
    { name: 'queue × assignee × priority', queue: 1, assigned: user, priority: 2, view: false },
    {
      name: 'statuses × queue × submitter_email',
      status: '1,2',
      queue: 1,
      email: 'customer7@example.com',
      view: false,
    },
    {
      name: 'status × queue × unassigned × created_since',
      status: '5',
      queue,
      assigned: 'none',
      createdSince: since.created,
      view: false,
    },
    { name: 'no filter', view: false },
  ];
}

export function queryOf(c: Combination, ordering: string): string {
  const parts = [
    c.status && `status=${c.status}`,
    c.queue !== undefined && `queue=${c.queue}`,
    c.assigned !== undefined && `assigned_to=${c.assigned}`,
    c.priority !== undefined && `priority=${c.priority}`,
    c.email && `submitter_email=${encodeURIComponent(c.email)}`,
    c.createdSince && `created_since=${encodeURIComponent(c.createdSince)}`,
    c.updatedSince && `updated_since=${encodeURIComponent(c.updatedSince)}`,
    `ordering=${ordering}`,
  ];
  return `/api/tickets/?${parts.filter(Boolean).join('&')}`;
}

function matches(c: Combination, t: SeededTicket): boolean {
  const statuses = c.status?.split(',').map((s) => STATUS_NAMES[s] ?? Number(s));
  return (
    (!statuses || statuses.includes(t.status)) &&
    (c.queue === undefined || t.queue === c.queue) &&
    (c.assigned === undefined || (c.assigned === 'none' ? t.assigned_to === null : t.assigned_to === c.assigned)) &&
    (c.priority === undefined || t.priority === c.priority) &&
    (c.email === undefined || t.email === c.email) &&
    (c.createdSince === undefined || t.created >= c.createdSince) &&
    (c.updatedSince === undefined || t.modified >= c.updatedSince)
  );
}

/** Ascending by the field, then id; no due date after every date (PostgreSQL's nulls last); `-` reverses the whole. */
function compare(ordering: string): (a: SeededTicket, b: SeededTicket) => number {
  const field = ordering.replace('-', '');
  const value = (t: SeededTicket): string | number =>
    field === 'id'
      ? 0
      : field === 'priority'
        ? t.priority
        : field === 'due_date'
          ? (t.due_date ?? '~')
          : t[field as 'created' | 'modified'];
  const ascending = (a: SeededTicket, b: SeededTicket) => {
    const [x, y] = [value(a), value(b)];
    return x < y ? -1 : x > y ? 1 : a.id - b.id;
  };
  return ordering.startsWith('-') ? (a, b) => ascending(b, a) : ascending;
}

export function expectedIds(all: SeededTicket[], c: Combination, ordering: string): number[] {
  return all
    .filter((t) => matches(c, t))
    .sort(compare(ordering))
    .map((t) => t.id);
}

/** One combination in one ordering: its first page (25) and, when followed, the whole list. */
export interface ListResult {
  combination: string;
  ordering: string;
  view: boolean;
  requests: number;
  readUnits: number;
  count: number | null;
  expected: number;
  check?: FilterCheck;
  /** Milliseconds the whole list took to follow. */
  followMs?: number;
}

/**
 * Each combination in each ordering: the first page's cost and count; the whole list followed
 * (100 a page) where `follow` says so, `progress` told of each list followed (a list that checks
 * its filters on a whole-table partition reads it 100 entries a page: the slow part at 20,000).
 */
export async function measureLists(
  probe: ScaleProbe,
  all: SeededTicket[],
  combos: Combination[],
  follow: (c: Combination, ordering: string) => boolean,
  progress: (r: ListResult) => void = () => {},
): Promise<ListResult[]> {
  const results: ListResult[] = [];
  for (const c of combos) {
    for (const ordering of LIST_ORDERINGS) {
      const path = `${queryOf(c, ordering)}&page_size=25`;
      const first = await probe.get(path); // warm
      if (first.status !== 200) throw new Error(`${path}: ${first.status} ${JSON.stringify(first.body)}`);
      const { requests, readUnits } = await probe.count(() => probe.get(path));
      const expected = expectedIds(all, c, ordering);
      const started = performance.now();
      const check = follow(c, ordering) ? await checkFilter(probe, queryOf(c, ordering), expected) : undefined;
      const result: ListResult = {
        combination: c.name,
        ordering,
        view: c.view,
        requests,
        readUnits: Math.round(readUnits * 100) / 100,
        count: first.body.count ?? null,
        expected: expected.length,
      };
      if (check) Object.assign(result, { check, followMs: Math.round(performance.now() - started) });
      results.push(result);
      if (check) progress(result);
    }
  }
  return results;
}

export const LISTS_START = '<!-- lists:start -->';
export const LISTS_END = '<!-- lists:end -->';

const most = (rows: ListResult[], f: (r: ListResult) => number) => (rows.length ? Math.max(...rows.map(f)) : 0);
const sum = (rows: ListResult[], f: (r: ListResult) => number) => rows.reduce((total, r) => total + f(r), 0);

/** The Filtered lists section of docs/benchmarks.md. */
export function renderLists(
  sizes: { tickets: number; simulated: boolean; results: ListResult[] }[],
  consumer: Record<string, { requests: number; readUnits: number; writeUnits: number }>,
  date: string,
  load: string,
): string {
  const combos = [...new Set(sizes[0]!.results.map((r) => r.combination))];
  const sizeHeads = sizes.map((s) => {
    const size = `${s.tickets.toLocaleString('en')}${s.simulated ? ' (simulated)' : ''}`;
    return `${size}: requests / read units (max over orderings)`;
  });
  const countedAt = sizes[1]?.tickets.toLocaleString('en') ?? '';
  const header =
    `| Combination | ${sizeHeads.join(' | ')} | count (${countedAt}) | followed to its end ` +
    `at ${(sizes[1] ?? sizes[0]!).tickets.toLocaleString('en')}: pages / requests (max ` +
    `over orderings) |`;
  const rows = combos.map((name) => {
    const cells = sizes.map((s) => {
      const rs = s.results.filter((r) => r.combination === name);
      return `${most(rs, (r) => r.requests)} / ${most(rs, (r) => r.readUnits)}`;
    });
    const at = (sizes[1] ?? sizes[0]!).results.filter((r) => r.combination === name);
    const exact = at.filter((r) => r.count === r.expected).map((r) => r.ordering);
    const unknown = at.filter((r) => r.count === null).map((r) => r.ordering);
    const wrong = at
      .filter((r) => r.count !== null && r.count !== r.expected)
      .map((r) => `${r.ordering}: ${r.count} of ${r.expected}`);
    const counted = [
      exact.length === at.length ? 'exact' : exact.length ? `exact (${exact.join(', ')})` : '',
      unknown.length === at.length ? 'null' : unknown.length ? 'null otherwise' : '',
      wrong.length ? `WRONG ${wrong.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const followed = at.filter((r) => r.check);
    const walk = followed.length
      ? `${most(followed, (r) => r.check!.pages)} / ${most(followed, (r) => r.check!.requests)}`
      : '–';
    return `| ${name} | ${cells.join(' | ')} | ${counted} | ${walk} |`;
  });
  const checks = sizes.flatMap((s) => s.results.filter((r) => r.check).map((r) => ({ ...r, tickets: s.tickets })));
  const missed = checks.filter((r) => !r.check!.exact);
  const slowest = checks.reduce<(typeof checks)[number] | undefined>(
    (a, r) => (!a || (r.followMs ?? 0) > (a.followMs ?? 0) ? r : a),
    undefined,
  );
  const views = sizes.flatMap((s) => s.results.filter((r) => r.view));
  const viewRequests = most(views, (r) => r.requests);
  const matched = checks.length - missed.length;
  const followedSizes = [...new Set(checks.map((r) => r.tickets))].map((n) => n.toLocaleString('en')).join(' and ');
  const missedLists = missed.map((r) => `${r.combination} ${r.ordering} at ${r.tickets}`).join(', ');
  const followMinutes = (sum(checks, (r) => r.followMs ?? 0) / 60_000).toFixed(1);
  const longest = slowest
    ? `${slowest.combination} by ${slowest.ordering} at ${slowest.tickets.toLocaleString('en')}`
    : '–';
  const longestSeconds = slowest ? (slowest.followMs! / 1000).toFixed(1) : '–';
  const consumerRows = Object.entries(consumer).map(
    ([name, c]) => `| ${name} | ${c.requests} | ${c.readUnits} | ${c.writeUnits} |`,
  );
  return `${LISTS_START}
## Filtered lists: every combination in every ordering

Measured ${date} by \`npm run bench -- --lists\` (load average ${load}): the combinations of issue 24
item 1, each in the ten orderings (id, created, modified, priority, due_date and their reverses),
seeded by bench/seed.ts (statuses 1–5, every seventh ticket in a second queue, every tenth assigned,
priorities 1–4, 50 submitters, due dates on three tickets in four). Per combination, its first page of
25: DynamoDB requests and read units, the most over its orderings. The simulated size adds the counts
of millions of tickets (bench/seed.ts \`simulateTickets\`): a filtered page reads the same partitions,
which a Query with a Limit reads a page of whatever they hold.

${header}
|---|${sizes.map(() => '---|').join('')}---|---|
${rows.join('\n')}

- **Agent views, every ordering:** at most ${viewRequests} requests and ${most(views, (r) => r.readUnits)} read units a
  page at every size (${views.length} pages measured); their \`count\` is exact in every ordering.
- **Exactly the matching tickets, in order, across pages:** ${matched} of ${checks.length} lists followed
  to their end (100 a page) matched the seeded tickets filtered and sorted independently
  (${followedSizes} tickets)${missed.length ? `; missed: ${missedLists}` : ''}.
  Every combination in every ordering is followed at both sizes, ${checks.length} lists, in ${followMinutes} minutes;
  the longest, ${longest}, took ${longestSeconds} s and ${slowest?.check!.pages ?? '–'} pages (a list
  that checks its filters on a whole-table partition reads it 100 entries a page). \`created_since\` in
  id order reads the whole table here too: bench/seed.ts stamps its tickets within seconds, so the id
  floor (the last ticket created 16 minutes before the time asked for) lies before all of them; on a
  table whose tickets came over weeks it starts at that time's tickets
  (tests/integration/ticket-filters-id-floor.test.ts: the first page, 7 requests).

What the stream consumer wrote per change in this run (one change alone, the stream drained before
and after it):

| Change | Consumer requests | Read units | Write units |
|---|---|---|---|
${consumerRows.join('\n')}
${LISTS_END}`;
}
