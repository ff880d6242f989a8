/** GET /api/docs: the API reference page (Swagger UI over /api/openapi.json), same-origin only. */
import { apiHandler } from '../../shared/middleware';
import { DOCS_CSP, DOCS_PAGE } from '../../shared/docs/page';

export const handler = apiHandler('api/docs', () => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': DOCS_CSP,
    'Cache-Control': 'no-cache',
  },
  body: DOCS_PAGE,
}));
