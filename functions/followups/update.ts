/** PATCH /api/followups/{id}/ */
import { apiHandler } from '../../shared/middleware';
import { editFollowup } from './edit';

export const handler = apiHandler('followups/update', (event) => editFollowup(event, 'partial'));
