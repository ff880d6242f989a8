/** PUT /api/followups/{id}/: `ticket` required; other fields left out keep their values. */
import { apiHandler } from '../../shared/middleware';
import { editFollowup } from './edit';

export const handler = apiHandler('followups/replace', (event) => editFollowup(event, 'replace'));
