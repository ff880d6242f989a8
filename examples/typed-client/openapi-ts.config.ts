/**
 * @hey-api/openapi-ts's settings for the typed client check (scripts/typed-clients.ts): a fetch
 * client and SDK from the document the API served, in generated/hey-api.
 *
 * One adjustment, for a known limit of the generator (hey-api/hey-api#2311): of a request body's
 * media types it types and sends only JSON whenever JSON is one of them. Ticket and followup
 * creation take JSON, a form or multipart (files only in multipart), so the patch keeps only the
 * multipart variant of the operations whose multipart body has file parts: their SDK functions then
 * send multipart, with the files typed `Blob | File`. It reads the document, naming no operation.
 */
import { defineConfig } from '@hey-api/openapi-ts';

/** A multipart part that is a file, or a list of files. */
function isFilePart(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  return 'contentMediaType' in schema || ('items' in schema && isFilePart(schema.items));
}

export default defineConfig({
  input: './generated/openapi.json',
  output: './generated/hey-api',
  parser: {
    patch: {
      operations: (_method, _path, operation) => {
        if (!('requestBody' in operation) || !operation.requestBody || '$ref' in operation.requestBody) return;
        const content = operation.requestBody.content;
        const schema = content['multipart/form-data']?.schema;
        if (!schema || '$ref' in schema || !Object.values(schema.properties ?? {}).some(isFilePart)) return;
        for (const type of Object.keys(content)) if (type !== 'multipart/form-data') delete content[type];
      },
    },
  },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
});
