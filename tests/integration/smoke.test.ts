import { describe, expect, it } from 'vitest';
import { call, createTicket } from './client';

describe('the local runtime', () => {
  it('creates and reads back a ticket over HTTP', async () => {
    const created = await createTicket();
    const read = await call('GET', `/api/tickets/${created.body.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });
});
