/** GET /api/: links to the API's resources, as upstream's router root. */
import { apiHandler } from '../../shared/middleware';
import { baseUrl, json } from '../../shared/middleware/http';

export const handler = apiHandler('api/root', (event) => {
  const api = `${baseUrl(event)}/api`;
  return json(200, {
    tickets: `${api}/tickets/`,
    user_tickets: `${api}/user_tickets/`,
    followups: `${api}/followups/`,
    'followups-attachments': `${api}/followups-attachments/`,
    users: `${api}/users/`,
  });
});
