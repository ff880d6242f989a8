/** GET /api/tickets/: pagination (3.5, 1.f) and the status filter (5.2, 1.e). */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { API, TICKET_KEYS, VALID_TICKET, call, createTicket, form, listAll, unique, type Json } from './client';

const INVALID_PAGE = { detail: 'Invalid page.' };
const LIST = `${API}/api/tickets/`;

async function count(query = ''): Promise<number> {
  const reply = await call('GET', `/api/tickets/?page_size=1${query ? `&${query}` : ''}`);
  expect(reply.status).toBe(200);
  return reply.body.count;
}

/**
 * Makes sure at least `n` tickets exist and are counted (other files may have created many
 * already). The count follows the table's stream, a moment behind a burst of creates: the pages
 * the tests below check are numbered from it.
 */
async function ensureAtLeast(n: number): Promise<void> {
  let missing = n - (await count());
  while (missing > 0) {
    const batch = Math.min(missing, 8);
    await Promise.all(Array.from({ length: batch }, () => createTicket({ title: 'filler' })));
    missing -= batch;
  }
  await vi.waitFor(async () => expect(await count()).toBeGreaterThanOrEqual(n), { timeout: 30_000, interval: 100 });
}

const ids = (results: Json[]) => results.map((t) => t.id as number);

function expectAscending(list: number[]): void {
  for (let i = 1; i < list.length; i++) expect(list[i]).toBeGreaterThan(list[i - 1]!);
}

beforeAll(async () => {
  await ensureAtLeast(130); // a margin: other files delete their own tickets meanwhile
});

describe('pagination', () => {
  it('answers the envelope {count, next, previous, results} of full tickets', async () => {
    const reply = await call('GET', '/api/tickets/?page_size=3');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['count', 'next', 'previous', 'results']);
    expect(Number.isInteger(reply.body.count)).toBe(true);
    expect(reply.body.results).toHaveLength(3);
    for (const ticket of reply.body.results) expect(Object.keys(ticket)).toEqual(TICKET_KEYS);
  });

  it("a list item equals the ticket's detail, followups and attachments included", async () => {
    const ticket = (
      await call('POST', '/api/tickets/', {
        form: form({ ...VALID_TICKET, title: unique('listed') }, [
          { field: 'attachment', name: 'a.txt', type: 'text/plain', content: 'a' },
        ]),
      })
    ).body;
    await call('POST', '/api/followups/', { json: { ticket: ticket.id, title: 'second', comment: 'more' } });
    const detail = (await call('GET', `/api/tickets/${ticket.id}/`)).body;
    expect(detail.followup_set).toHaveLength(2);
    const listed = (await listAll()).find((t) => t.id === ticket.id);
    expect(listed).toEqual(detail);
  });

  it('orders tickets by id ascending', async () => {
    const first = await call('GET', '/api/tickets/?page_size=100');
    expectAscending(ids(first.body.results));
    const second = await call('GET', '/api/tickets/?page_size=50&page=2');
    expectAscending(ids(second.body.results));
  });

  it('uses 25 per page by default', async () => {
    const reply = await call('GET', '/api/tickets/');
    expect(reply.body.results).toHaveLength(25);
    expect(reply.body.next).toBe(`${LIST}?page=2`);
    expect(reply.body.previous).toBeNull();
  });

  it('caps page_size at 100', async () => {
    const reply = await call('GET', '/api/tickets/?page_size=1000');
    expect(reply.status).toBe(200);
    expect(reply.body.results).toHaveLength(100);
    expect(reply.body.next).toBe(`${LIST}?page=2&page_size=1000`);
  });

  it.each([['0'], ['-5'], ['abc'], ['1.5'], ['']])('ignores page_size=%s and uses 25', async (size) => {
    const reply = await call('GET', `/api/tickets/?page_size=${size}`);
    expect(reply.status).toBe(200);
    expect(reply.body.results).toHaveLength(25);
  });

  it('page=last answers the last page', async () => {
    // Tickets other test files created a moment ago are listed on the last page before the count
    // (which follows the stream) holds them: read it once the count has caught up.
    type Reply = Awaited<ReturnType<typeof call>>;
    const settled = (r: Reply) => r.body.results.length === r.body.count - (Math.ceil(r.body.count / 7) - 1) * 7;
    let reply: Reply | undefined;
    await expect
      .poll(async () => settled((reply = await call('GET', '/api/tickets/?page_size=7&page=last'))), {
        timeout: 10_000,
      })
      .toBe(true);
    reply = reply!;
    expect(reply.status).toBe(200);
    const { count: total, results, next, previous } = reply.body;
    const pages = Math.ceil(total / 7);
    expect(results).toHaveLength(total - (pages - 1) * 7);
    expect(next).toBeNull();
    expect(previous).toBe(pages === 2 ? `${LIST}?page_size=7` : `${LIST}?page=${pages - 1}&page_size=7`);
  });

  it('an empty page means page 1', async () => {
    const reply = await call('GET', '/api/tickets/?page_size=2&page=');
    expect(reply.status).toBe(200);
    expect(reply.body.previous).toBeNull();
    expect(reply.body.next).toBe(`${LIST}?page=2&page_size=2`);
  });

  it.each([['0'], ['abc'], ['-1'], ['1.5'], ['999999']])('page=%s gives 404 "Invalid page."', async (page) => {
    const reply = await call('GET', `/api/tickets/?page=${page}`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(INVALID_PAGE);
  });

  it("links are the request URL with page set; the link to page 1 has no page (upstream's example)", async () => {
    const reply = await call('GET', '/api/tickets/?page_size=1&page=2');
    expect(reply.body.next).toBe(`${LIST}?page=3&page_size=1`);
    expect(reply.body.previous).toBe(`${LIST}?page_size=1`);
    const first = await call('GET', '/api/tickets/?page_size=1');
    expect(first.body.next).toBe(`${LIST}?page=2&page_size=1`);
    expect(first.body.previous).toBeNull();
  });

  it('links keep every query parameter, re-encoded and sorted by name', async () => {
    const reply = await call('GET', '/api/tickets/?zeta=z%20z&page_size=2&alpha=a+b&page=3&mid=%C3%A9');
    expect(reply.status).toBe(200);
    expect(reply.body.next).toBe(`${LIST}?alpha=a+b&mid=%C3%A9&page=4&page_size=2&zeta=z+z`);
    expect(reply.body.previous).toBe(`${LIST}?alpha=a+b&mid=%C3%A9&page=2&page_size=2&zeta=z+z`);
  });

  it(
    'honours no other field filter parameters (the filters and ordering of issue 15 are in ' +
      'ticket-filters.test.ts)',
    async () => {
      const reply = await call('GET', `/api/tickets/?title=${unique('t')}&page_size=20`);
      expect(reply.status).toBe(200);
      expect(reply.body.results).toHaveLength(20);
      expectAscending(ids(reply.body.results));
      const reversed = await call('GET', `/api/tickets/?ordering=-id&title=${unique('t')}&page_size=20`);
      expect(ids(reversed.body.results)).toEqual([...ids(reversed.body.results)].sort((a, b) => b - a));
    },
  );

  it('answers ?search= with a 400 naming the setting where search is off (search.test.ts runs it on)', async () => {
    const reply = await call('GET', `/api/tickets/?search=${unique('s')}`);
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('HELPDESK_SEARCH');
  });
});

describe('?status= filter', () => {
  let open: Json;
  let resolved: Json;
  let closed: Json;
  let duplicate: Json;

  beforeAll(async () => {
    [open, resolved, closed, duplicate] = await Promise.all([
      createTicket(),
      createTicket(),
      createTicket(),
      createTicket(),
    ]).then((r) => r.map((x) => x.body));
    await call('PATCH', `/api/tickets/${resolved.id}/`, { json: { status: 3 } });
    await call('PATCH', `/api/tickets/${closed.id}/`, { json: { status: 4 } });
    await call('PATCH', `/api/tickets/${duplicate.id}/`, { json: { status: 5 } });
  });

  async function filtered(query: string): Promise<Json[]> {
    return listAll(query);
  }

  it('takes a numeric id', async () => {
    const results = await filtered('status=3');
    expect(ids(results)).toContain(resolved.id);
    expect(ids(results)).not.toContain(open.id);
    expect(ids(results)).not.toContain(closed.id);
    expect(results.every((t) => t.status === 3)).toBe(true);
  });

  it('takes comma-separated ids and names, any case', async () => {
    for (const query of ['status=3,4', 'status=Resolved,closed', 'status=RESOLVED,4', 'status=resolved%2C%20Closed']) {
      const results = await filtered(query);
      expect(ids(results), query).toEqual(expect.arrayContaining([resolved.id, closed.id]));
      expect(ids(results), query).not.toContain(open.id);
      expect(ids(results), query).not.toContain(duplicate.id);
      expect(
        results.every((t) => t.status === 3 || t.status === 4),
        query,
      ).toBe(true);
    }
  });

  it('status=Open lists open tickets only', async () => {
    const results = await filtered('status=Open');
    expect(ids(results)).toContain(open.id);
    expect(ids(results)).not.toContain(resolved.id);
    expect(results.every((t) => t.status === 1)).toBe(true);
  });

  it('follows status changes', async () => {
    const ticket = (await createTicket()).body;
    expect(ids(await filtered('status=Duplicate'))).not.toContain(ticket.id);
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 5 } });
    expect(ids(await filtered('status=Duplicate'))).toContain(ticket.id);
    expect(ids(await filtered('status=1'))).not.toContain(ticket.id);
    await call('POST', '/api/followups/', {
      json: { ticket: ticket.id, title: 'reopen', comment: 'again', new_status: 2 },
    });
    const reopened = await filtered('status=Reopened');
    expect(ids(reopened)).toContain(ticket.id);
    expect(reopened.find((t) => t.id === ticket.id).followup_set).toHaveLength(2);
  });

  it('a filtered list item equals the detail after status changes, files included', async () => {
    const ticket = (
      await call('POST', '/api/tickets/', {
        form: form({ ...VALID_TICKET, title: unique('moving') }, [
          { field: 'attachment', name: 'a.txt', type: 'text/plain', content: 'a' },
        ]),
      })
    ).body;
    await call('POST', '/api/followups/', {
      form: form({ ticket: ticket.id, title: 'files', comment: 'c' }, [
        { field: 'attachments', name: 'b.txt', type: 'text/plain', content: 'b' },
        { field: 'attachments', name: 'c.txt', type: 'text/plain', content: 'c' },
      ]),
    });
    await call('PATCH', `/api/tickets/${ticket.id}/`, { json: { status: 4 } });
    await call('POST', '/api/followups/', {
      json: { ticket: ticket.id, title: 'resolve', comment: 'r', new_status: 3 },
    });
    const detail = (await call('GET', `/api/tickets/${ticket.id}/`)).body;
    expect(detail.status).toBe(3);
    expect(detail.followup_set).toHaveLength(3);
    expect((await filtered('status=3')).find((t) => t.id === ticket.id)).toEqual(detail);
    expect(ids(await filtered('status=4'))).not.toContain(ticket.id);
  });

  it('counts and pages the filtered tickets only', async () => {
    const reply = await call('GET', '/api/tickets/?status=Duplicate&page_size=1');
    expect(reply.status).toBe(200);
    expect(reply.body.count).toBeGreaterThanOrEqual(1);
    expect(reply.body.count).toBeLessThan(await count());
    if (reply.body.count > 1) expect(reply.body.next).toBe(`${LIST}?page=2&page_size=1&status=Duplicate`);
  });

  it('an empty ?status= means no filter', async () => {
    const all = ids(await filtered('status='));
    expect(all).toEqual(expect.arrayContaining([open.id, resolved.id, closed.id, duplicate.id]));
  });

  it('an unknown name gives 400 keyed status', async () => {
    const reply = await call('GET', '/api/tickets/?status=Pending');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ status: ['"Pending" is not a valid choice.'] });
  });

  it('an unknown id gives 400 keyed status, even next to a valid one', async () => {
    const reply = await call('GET', '/api/tickets/?status=1,9');
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ status: ['"9" is not a valid choice.'] });
  });
});
