/** DELETE /api/tickets/{id}/ (docs/upstream.md: decided points, deletes). */
import { describe, expect, it } from 'vitest';
import { call, createTicket, createUser, listAll } from './client';

async function exists(id: number): Promise<boolean> {
  const reply = await call('GET', `/api/tickets/${id}/`);
  expect([200, 404]).toContain(reply.status);
  return reply.status === 200;
}

async function mergeInto(source: number, target: number | null): Promise<void> {
  const reply = await call('PATCH', `/api/tickets/${source}/`, { json: { merged_to: target } });
  expect(reply.status).toBe(200);
}

describe('deleting a ticket', () => {
  it('answers 204 with an empty body; the ticket is gone and a second DELETE gives 404', async () => {
    const ticket = (await createTicket()).body;
    await call('POST', '/api/followups/', { json: { ticket: ticket.id, title: 'a followup', comment: 'c' } });
    const reply = await call('DELETE', `/api/tickets/${ticket.id}/`);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(await exists(ticket.id)).toBe(false);
    const again = await call('DELETE', `/api/tickets/${ticket.id}/`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Not found.' });
  });

  it('removes the ticket from the list', async () => {
    const ticket = (await createTicket()).body;
    await call('DELETE', `/api/tickets/${ticket.id}/`);
    expect((await listAll()).map((t) => t.id)).not.toContain(ticket.id);
  });

  it('a followup on a deleted ticket is refused', async () => {
    const ticket = (await createTicket()).body;
    await call('DELETE', `/api/tickets/${ticket.id}/`);
    const reply = await call('POST', '/api/followups/', { json: { ticket: ticket.id, title: 't', comment: 'c' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ ticket: [`Invalid pk "${ticket.id}" - object does not exist.`] });
  });

  it('deletes the tickets merged into it', async () => {
    const target = (await createTicket()).body;
    const merged1 = (await createTicket()).body;
    const merged2 = (await createTicket()).body;
    const bystander = (await createTicket()).body;
    await mergeInto(merged1.id, target.id);
    await mergeInto(merged2.id, target.id);
    expect((await call('DELETE', `/api/tickets/${target.id}/`)).status).toBe(204);
    expect(await exists(target.id)).toBe(false);
    expect(await exists(merged1.id)).toBe(false);
    expect(await exists(merged2.id)).toBe(false);
    expect(await exists(bystander.id)).toBe(true);
  });

  it('deletes merge chains: tickets merged into a ticket merged into it', async () => {
    const root = (await createTicket()).body;
    const middle = (await createTicket()).body;
    const leaf = (await createTicket()).body;
    await mergeInto(middle.id, root.id);
    await mergeInto(leaf.id, middle.id);
    expect((await call('DELETE', `/api/tickets/${root.id}/`)).status).toBe(204);
    expect(await exists(middle.id)).toBe(false);
    expect(await exists(leaf.id)).toBe(false);
  });

  it('keeps a ticket whose merge was undone or moved elsewhere', async () => {
    const target = (await createTicket()).body;
    const other = (await createTicket()).body;
    const unmerged = (await createTicket()).body;
    const moved = (await createTicket()).body;
    await mergeInto(unmerged.id, target.id);
    await mergeInto(moved.id, target.id);
    await mergeInto(unmerged.id, null);
    await mergeInto(moved.id, other.id);
    expect((await call('DELETE', `/api/tickets/${target.id}/`)).status).toBe(204);
    expect(await exists(unmerged.id)).toBe(true);
    expect(await exists(moved.id)).toBe(true);
    expect((await call('DELETE', `/api/tickets/${other.id}/`)).status).toBe(204);
    expect(await exists(moved.id)).toBe(false);
  });

  it('deleting a merged ticket leaves the ticket it was merged into', async () => {
    const target = (await createTicket()).body;
    const source = (await createTicket()).body;
    await mergeInto(source.id, target.id);
    expect((await call('DELETE', `/api/tickets/${source.id}/`)).status).toBe(204);
    expect(await exists(target.id)).toBe(true);
    // And the target can still be deleted on its own.
    expect((await call('DELETE', `/api/tickets/${target.id}/`)).status).toBe(204);
  });

  it('a ticket merged into itself can be deleted', async () => {
    const ticket = (await createTicket()).body;
    await mergeInto(ticket.id, ticket.id);
    expect((await call('DELETE', `/api/tickets/${ticket.id}/`)).status).toBe(204);
    expect(await exists(ticket.id)).toBe(false);
  });

  it('merge cycles do not stop the delete', async () => {
    const a = (await createTicket()).body;
    const b = (await createTicket()).body;
    await mergeInto(a.id, b.id);
    await mergeInto(b.id, a.id);
    expect((await call('DELETE', `/api/tickets/${a.id}/`)).status).toBe(204);
    expect(await exists(a.id)).toBe(false);
    expect(await exists(b.id)).toBe(false);
  });

  it('deletes a merge group larger than one DynamoDB transaction (100 actions)', { timeout: 60_000 }, async () => {
    const target = (await createTicket({ title: 'big merge target' })).body.id;
    const merged: number[] = [];
    for (let batch = 0; batch < 11; batch++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, async () => (await createTicket({ title: 'merged' })).body.id as number),
      );
      await Promise.all(ids.map((id) => call('PATCH', `/api/tickets/${id}/`, { json: { merged_to: target } })));
      merged.push(...ids);
    }
    const reply = await call('DELETE', `/api/tickets/${target}/`);
    expect(reply.status).toBe(204);
    const after = await Promise.all([target, ...merged].map((id) => call('GET', `/api/tickets/${id}/`)));
    expect(after.map((r) => r.status)).toEqual(after.map(() => 404));
  });

  it('a non-staff user cannot delete', async () => {
    const user = await createUser();
    const ticket = (await createTicket()).body;
    const reply = await call('DELETE', `/api/tickets/${ticket.id}/`, { auth: user.auth });
    expect(reply.status).toBe(403);
    expect(await exists(ticket.id)).toBe(true);
  });
});
