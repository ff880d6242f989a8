/** PUT /api/tickets/{id}/: full update; creation's required fields must be sent. */
import { apiHandler } from '../../shared/middleware';
import { updateTicketRequest } from './edit';

export const handler = apiHandler('tickets/replace', (event) => updateTicketRequest(event, 'replace'));
