/** GET /api/docs/{asset}: the reference page's script and style files (Swagger UI, bundled with this function). */
import { apiHandler } from '../../shared/middleware';
import { header } from '../../shared/middleware/http';
import { NotFound } from '../../shared/domain/errors';
import { DOCS_CSP, docsAsset } from '../../shared/docs/page';

export const handler = apiHandler('api/docs-assets', (event) => {
  const asset = docsAsset(event.pathParameters?.asset ?? '');
  if (!asset) throw new NotFound();
  const gzip = /\bgzip\b/i.test(header(event, 'accept-encoding') ?? '');
  const body = gzip ? asset.gzipped : asset.body;
  return {
    statusCode: 200,
    headers: {
      'Content-Type': asset.contentType,
      'Content-Security-Policy': DOCS_CSP,
      // Behind authentication: caches shared between users must not keep it.
      'Cache-Control': 'private, max-age=3600',
      Vary: 'Accept, Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    },
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
});
