/**
 * The search index rebuilt from the table (`npm run helpdesk -- reindex` runs rebuildSearchIndex)
 * equals the index the stream built, document for document; and a rebuild stopped part-way goes on
 * from where it stopped. In-process: the test reads the engine's documents directly.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, form, unique } from './client';
import { startInProcessRuntime, type InProcessRuntime } from './in-process-runtime';

let runtime: InProcessRuntime;
let api: ReturnType<typeof clientFor>;

beforeAll(async () => {
  runtime = await startInProcessRuntime({ HELPDESK_SEARCH: 'pglite' });
  api = clientFor(runtime.url);
}, 120_000);
afterAll(async () => {
  await runtime?.stop();
});

const documents = async () => {
  const [{ searchEngine }, { DOCUMENTS }] = await Promise.all([
    import('../../shared/search/engine'),
    import('../../shared/search/sql'),
  ]);
  return (await searchEngine()!).query({ sql: DOCUMENTS });
};

it('rebuilds the live index exactly, and goes on from where a stopped rebuild was', async () => {
  const word = unique('r');
  const field = unique('f');
  expect(
    (
      await api.call('POST', '/api/custom-fields/', {
        json: { label: 'L', name: field, data_type: 'varchar', max_length: 40, staff_only: true },
      })
    ).status,
  ).toBe(201);
  const ids: number[] = [];
  for (let i = 0; i < 6; i++)
    ids.push(
      (
        await api.createTicket({
          title: `${word} ticket ${i}`,
          description: `Café number ${i}`,
          [`custom_${field}`]: `secret ${i}`,
        })
      ).body.id,
    );
  const followup = await api.call('POST', '/api/followups/', {
    form: form({ ticket: ids[0]!, title: 'private note', comment: 'hidden words', public: false }, [
      { field: 'attachments', name: 'report-7.pdf', content: 'x' },
    ]),
  });
  expect(followup.status).toBe(201);
  expect(
    (
      await api.call('POST', '/api/followups/', {
        json: { ticket: ids[1], title: 'reply', comment: 'public words', public: true },
      })
    ).status,
  ).toBe(201);
  expect((await api.call('PATCH', `/api/followups/${followup.body.id}/`, { json: { public: true } })).status).toBe(200);
  expect((await api.call('PATCH', `/api/tickets/${ids[2]}/`, { json: { merged_to: ids[3] } })).status).toBe(200);
  expect((await api.call('DELETE', `/api/tickets/${ids[4]}/`)).status).toBe(204);
  await runtime.drainTableStream();
  const live = await documents();
  expect(live.map((d) => Number(d.id))).toEqual(expect.arrayContaining([ids[0], ids[5]]));
  expect(live.map((d) => Number(d.id))).not.toContain(ids[4]);

  const { rebuildSearchIndex } = await import('../../shared/search/rebuild');
  // Stopped after its first page: the next run goes on from there.
  await expect(
    rebuildSearchIndex({
      restart: true,
      onProgress: () => {
        throw new Error('stopped');
      },
    }),
  ).rejects.toThrow('stopped');
  const resumed = await rebuildSearchIndex();
  expect(resumed.resumedFrom).toBeGreaterThan(0);
  expect(await documents()).toEqual(live);
  const again = await rebuildSearchIndex({ restart: true });
  expect(again.resumedFrom).toBeUndefined();
  expect(again.tickets).toBe(live.length);
  expect(await documents()).toEqual(live);
});
