import { describe, expect, it } from 'vitest';
import { crossOriginRefusal } from '../../shared/domain/cross-origin';

const post = (headers: { origin?: string; secFetchSite?: string; host?: string }, method = 'POST') => ({
  method,
  host: headers.host ?? 'api.example.com',
  origin: headers.origin,
  secFetchSite: headers.secFetchSite,
});

describe('cross-origin protection (Sec-Fetch-Site, then Origin)', () => {
  it('refuses a write a browser sends from another site, whatever the method or body', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(
        crossOriginRefusal(post({ secFetchSite: 'cross-site', origin: 'https://evil.example' }, method), []),
      ).toMatch(/Cross-site request refused/);
      expect(crossOriginRefusal(post({ secFetchSite: 'same-site' }, method), [])).toMatch(/same-site/);
    }
    // Origin alone (older browsers): its host must be the request's.
    expect(crossOriginRefusal(post({ origin: 'https://evil.example' }), [])).toMatch(/evil\.example/);
    expect(crossOriginRefusal(post({ origin: 'null' }), [])).toBeDefined();
  });

  it(
    'lets through same-origin and user-initiated browser requests, listed origins, and clients that are not ' +
      'browsers',
    () => {
      expect(
        crossOriginRefusal(post({ secFetchSite: 'same-origin', origin: 'https://api.example.com' }), []),
      ).toBeUndefined();
      expect(crossOriginRefusal(post({ secFetchSite: 'none' }), [])).toBeUndefined();
      expect(crossOriginRefusal(post({ origin: 'https://api.example.com' }), [])).toBeUndefined();
      expect(
        crossOriginRefusal(post({ origin: 'https://app.example.com', secFetchSite: 'cross-site' }), [
          'https://app.example.com',
        ]),
      ).toBeUndefined();
      expect(crossOriginRefusal(post({}), [])).toBeUndefined();
    },
  );

  it('never refuses a read, and a CORS * trusts no origin with writes', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS'])
      expect(crossOriginRefusal(post({ secFetchSite: 'cross-site' }, method), [])).toBeUndefined();
    expect(
      crossOriginRefusal(post({ origin: 'https://evil.example', secFetchSite: 'cross-site' }), ['*']),
    ).toBeDefined();
  });
});
