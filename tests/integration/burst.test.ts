/**
 * Bursts of writers on production semantics (issue 12): on a fresh runtime of its own, with the
 * transaction conflict emulation on (its default), 500 creates sent at once (one in ten multipart
 * with a file) and then 200 followups on one ticket at once all answer 201 the first time, with
 * distinct ids; every one is stored, and the list's count becomes exact. No timing is asserted
 * (`npm run bench -- --burst` measures the rates).
 */
import { describe, expect, it } from 'vitest';
import { form, unique, type Json, type Reply } from './client';
import { useOwnRuntime } from './own-runtime';

const CREATES = 500;
const FOLLOWUPS = 200;

const own = useOwnRuntime();

const statuses = (replies: Reply[]) =>
  replies.reduce<Record<number, number>>((all, r) => ({ ...all, [r.status]: (all[r.status] ?? 0) + 1 }), {});

describe('bursts', () => {
  it(
    `${CREATES} creates at once, then ${FOLLOWUPS} followups on one ticket at once: all 201 the first time, none lost`,
    { timeout: 300_000 },
    async () => {
      const run = unique('burst');
      const ticket = (i: number) => ({
        queue: 1,
        title: `${run}-${i}`,
        description: 'burst',
        submitter_email: 'burst@example.com',
      });
      const creates = await Promise.all(
        Array.from({ length: CREATES }, (_, i) =>
          i % 10 === 0
            ? own.api.call('POST', '/api/tickets/', {
                form: form(ticket(i), [
                  { field: 'attachment', name: `log-${i}.txt`, type: 'text/plain', content: `log ${i}` },
                ]),
              })
            : own.api.call('POST', '/api/tickets/', { json: ticket(i) }),
        ),
      );
      expect(statuses(creates)).toEqual({ 201: CREATES });
      const ids = creates.map((r) => r.body.id as number);
      expect(new Set(ids).size).toBe(CREATES);

      const target = ids[0]!;
      const followups = await Promise.all(
        Array.from({ length: FOLLOWUPS }, (_, i) =>
          own.api.call('POST', '/api/followups/', {
            json: { ticket: target, title: `${run}-f${i}`, comment: 'burst' },
          }),
        ),
      );
      expect(statuses(followups)).toEqual({ 201: FOLLOWUPS });
      expect(new Set(followups.map((r) => r.body.id)).size).toBe(FOLLOWUPS);

      // None lost: each ticket reads back as created; the target holds every followup; the count is
      // exact once the stream's consumer has caught up.
      const reads = await Promise.all(ids.map((id) => own.api.call('GET', `/api/tickets/${id}/`)));
      reads.forEach((r, i) => expect(r.body.title, `ticket ${ids[i]}`).toBe(`${run}-${i}`));
      const held = (await own.api.call('GET', `/api/tickets/${target}/`)).body.followup_set as Json[];
      expect(held).toHaveLength(1 + FOLLOWUPS);
      expect(await own.api.countsSettled()).toBe(CREATES);
    },
  );
});
