/** PATCH /api/tickets/{id}/: partial update; only the fields sent change. */
import { apiHandler } from '../../shared/middleware';
import { updateTicketRequest } from './edit';

export const handler = apiHandler('tickets/update', (event) => updateTicketRequest(event, 'partial'));
