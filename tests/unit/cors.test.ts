import { describe, expect, it } from 'vitest';
import {
  allowedOrigin,
  corsAllowMethods,
  isPreflight,
  parseCorsOrigins,
  preflightHeaders,
  responseCorsHeaders,
} from '../../infra/cors';

const ORIGINS = ['https://app.example.com', 'http://localhost:5173'];

describe('CORS policy', () => {
  it('allows every method of the route table, HEAD and OPTIONS', () => {
    expect(corsAllowMethods()).toEqual(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  });

  it('reads a comma-separated list of origins and refuses what is not an origin', () => {
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins(' ')).toEqual([]);
    expect(parseCorsOrigins('https://app.example.com, http://localhost:5173')).toEqual(ORIGINS);
    expect(parseCorsOrigins('*')).toEqual(['*']);
    expect(() => parseCorsOrigins('https://app.example.com/path')).toThrow(/not an origin/);
    expect(() => parseCorsOrigins('app.example.com')).toThrow(/not an origin/);
  });

  it('echoes an allowed origin (any case), * for a wildcard, nothing otherwise', () => {
    expect(allowedOrigin(ORIGINS, 'https://app.example.com')).toBe('https://app.example.com');
    expect(allowedOrigin(ORIGINS, 'HTTPS://APP.EXAMPLE.COM')).toBe('HTTPS://APP.EXAMPLE.COM');
    expect(allowedOrigin(ORIGINS, 'https://evil.example.com')).toBeUndefined();
    expect(allowedOrigin(ORIGINS, undefined)).toBeUndefined();
    expect(allowedOrigin([], 'https://app.example.com')).toBeUndefined();
    expect(allowedOrigin(['*'], 'https://any.example.com')).toBe('*');
  });

  it('knows a preflight from a plain OPTIONS', () => {
    expect(isPreflight('OPTIONS', { origin: 'https://a.example', 'access-control-request-method': 'POST' })).toBe(true);
    expect(isPreflight('OPTIONS', { origin: 'https://a.example' })).toBe(false);
    expect(isPreflight('OPTIONS', { 'access-control-request-method': 'POST' })).toBe(false);
    expect(isPreflight('GET', { origin: 'https://a.example', 'access-control-request-method': 'POST' })).toBe(false);
  });

  it('answers a preflight with methods, headers and max age, and adds the origin to responses', () => {
    expect(preflightHeaders(ORIGINS, 'https://app.example.com')).toEqual({
      'Access-Control-Allow-Origin': 'https://app.example.com',
      'Access-Control-Allow-Methods': 'GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS',
      'Access-Control-Allow-Headers': 'authorization,content-type,if-match,if-none-match,idempotency-key',
      'Access-Control-Max-Age': '3600',
    });
    expect(preflightHeaders(ORIGINS, 'https://evil.example.com')).toEqual({});
    expect(responseCorsHeaders(ORIGINS, 'http://localhost:5173')).toEqual({
      'Access-Control-Allow-Origin': 'http://localhost:5173',
      'Access-Control-Expose-Headers': 'etag,retry-after,location,allow,www-authenticate,idempotent-replayed',
    });
    expect(responseCorsHeaders(ORIGINS, undefined)).toEqual({});
  });
});
