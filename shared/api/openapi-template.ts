/**
 * The OpenAPI document's template (openapi-document.ts), built once per process. The openapi
 * function's bundle has it compiled in, brotli-compressed (infra/bundling.ts defines the variable
 * below: ~20 KiB instead of the route table, the zod shapes and their JSON Schema generator, ~65
 * KiB), and decompresses it at module load; unbundled (the local runtime, tests) it is built here
 * from the route table.
 */
import { brotliDecompressSync } from 'node:zlib';
import type { OpenApiTemplate } from './openapi-document';

// A build-time constant (esbuild's define), not a setting: it must stay this expression.
/* eslint-disable no-restricted-properties -- a build-time constant (esbuild's define), not a setting */
export const openApiTemplate: OpenApiTemplate = process.env.HELPDESK_OPENAPI_TEMPLATE
  ? (JSON.parse(
      brotliDecompressSync(Buffer.from(process.env.HELPDESK_OPENAPI_TEMPLATE, 'base64')).toString('utf8'),
    ) as OpenApiTemplate)
  : (await import('./openapi')).openApiTemplate();
/* eslint-enable no-restricted-properties */
