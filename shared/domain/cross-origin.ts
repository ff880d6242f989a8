/**
 * Cross-site request forgery protection without tokens, as current frameworks do it (Go 1.25's
 * `net/http.CrossOriginProtection`, and its ports): a browser that holds HTTP Basic credentials for
 * this API (the docs page asks for them) attaches them to any request another site makes it send,
 * including simple form, multipart and text/plain POSTs. Browsers say where a request comes from
 * (`Sec-Fetch-Site`, `Origin`); other clients send neither and are not affected. Pure rules.
 */

/** Methods that never change state (the API keeps it so): always allowed. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface CrossOriginRequest {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
}

/**
 * Undefined when the request may proceed; else why it is refused. `trusted` are the origins the
 * CORS setting lists by name (`*` trusts no origin here: it lets scripts read answers, not send
 * credentials, so it must not open the door to forms).
 */
export function crossOriginRefusal(request: CrossOriginRequest, trusted: readonly string[]): string | undefined {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return undefined;
  const origin = request.origin?.trim();
  if (origin && trusted.some((t) => t !== '*' && t.toLowerCase() === origin.toLowerCase())) return undefined;
  const site = request.secFetchSite?.trim().toLowerCase();
  if (site) {
    if (site === 'same-origin' || site === 'none') return undefined;
    const method = request.method.toUpperCase();
    return (
      `Cross-site request refused: this ${method} came from another site (Sec-Fetch-Site: ${site}). ` +
      `Send it from this API's ` +
      `own pages, from an origin ` +
      `the CORS setting lists, ` +
      `or from a client that ` +
      `is not a browser.`
    );
  }
  if (!origin) return undefined; // not a browser
  if (originHost(origin) !== request.host?.trim().toLowerCase()) {
    return (
      `Cross-site request refused: Origin ${origin} is not this API's host. Send it from this API's own pages, ` +
      `from an origin the CORS ` +
      `setting lists, or from ` +
      `a client that is not a ` +
      `browser.`
    );
  }
  return undefined;
}

/** `host[:port]` of an origin (`null` and unparsable ones match no host). */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.host.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Allowed origins from a comma-separated list (`HELPDESK_CORS_ORIGINS`, `-c corsOrigins=`):
 * exact origins (`https://app.example.com`) or `*`. Empty means CORS is off.
 */
export function parseCorsOrigins(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new Error(`CORS origin "${origin}" is not an origin (scheme://host[:port], no path) or *`);
    }
  }
  return origins;
}
