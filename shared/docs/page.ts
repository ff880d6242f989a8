/**
 * The API reference page: a small HTML page that loads Swagger UI (from the swagger-ui-dist
 * package, served by this API under /api/docs/, never from a CDN) and points it at
 * /api/openapi.json. Everything it loads comes from the API's own origin, which its
 * Content-Security-Policy enforces: no inline script or style, no other host.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DOCS_ASSETS } from './assets';

export const DOCS_PATH = '/api/docs';

/**
 * Only this origin: scripts, styles, fetches (the document) and images. `data:` images are the
 * icons inside Swagger UI's style sheet. No inline script: the page's setup is a file (init.js).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Helpdesk API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

/**
 * Swagger UI's setup. `validatorUrl: null`: no badge that would send the document to an outside
 * validator. "Try it out" sends requests to this origin with the credentials the browser holds.
 */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  docExpansion: 'list',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

export interface Asset {
  body: Buffer;
  gzipped: Buffer;
  contentType: string;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * Where the renderer's files are: in a Lambda bundle, the `assets/` folder the CDK stack copies
 * beside the bundle; locally, the package in node_modules.
 */
function assetPath(spec: string): string {
  const bundled = fileURLToPath(new URL(`./assets/${basename(spec)}`, import.meta.url));
  if (existsSync(bundled)) return bundled;
  return createRequire(import.meta.url).resolve(spec);
}

const cache = new Map<string, Asset>();

function load(name: string, read: () => Buffer): Asset {
  let asset = cache.get(name);
  if (!asset) {
    const body = read();
    // Swagger UI's bundle is ~1.7 MB: gzipped once per warm function, it goes out at ~0.5 MB.
    asset = { body, gzipped: gzipSync(body), contentType: TYPES[name.slice(name.lastIndexOf('.'))]! };
    cache.set(name, asset);
  }
  return asset;
}

/** One of the page's files by name, or undefined for any other name. */
export function docsAsset(name: string): Asset | undefined {
  if (name === 'init.js') return load(name, () => Buffer.from(INIT_SCRIPT));
  const spec = DOCS_ASSETS.find((s) => basename(s) === name);
  return spec ? load(name, () => readFileSync(assetPath(spec))) : undefined;
}
