/** Records for unit tests of the pure domain. */
import type { ParsedBody } from '../../shared/domain/body';
import type { Ticket } from '../../shared/domain/records';

export function ticketRecord(overrides: Partial<Ticket> = {}): Ticket {
  return {
    id: 1,
    queue: 1,
    title: 'A ticket',
    description: 'd',
    resolution: null,
    submitter_email: 'a@example.com',
    assigned_to: null,
    status: 1,
    on_hold: false,
    priority: 3,
    due_date: null,
    merged_to: null,
    secret_key: 'k',
    created: '2030-01-01T00:00:00.000000Z',
    modified: '2030-01-01T00:00:00.000000Z',
    custom: {},
    ...overrides,
  };
}

export const jsonBody = (data: Record<string, unknown>): ParsedBody => ({ kind: 'json', data, files: [] });
