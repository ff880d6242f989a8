/**
 * SigV4 signing for every AWS call the functions make (no SDK client in a bundle):
 * - `signRequest`: a request's headers. The POSTs of the JSON protocols (DynamoDB in dynamodb.ts; SQS,
 *   Secrets Manager and SES in aws-json.ts, through aws-request.ts: `signPost`), on every request of every
 *   function, and S3's PUT, GET and DELETE of an object (s3.ts). Written here for their shape (no query,
 *   headers given in lower case) and held to the SDK's own signer by tests/unit/sigv4.test.ts (the same
 *   headers for the same request, time and credentials), S3's to aws4fetch by tests/unit/s3-signing.test.ts.
 *   The SDK's signer took 28 to 40 µs of CPU a call on the benchmark's machine (it clones the request,
 *   awaits each hash, and hashes the credentials for its key cache on every call); this one about 10.
 *   No function bundles the SDK's signer (tickets/get 142 → 129 KiB).
 * - `presignS3Get`: S3's presigned GETs (s3.ts: downloads, the links in mail, parked answers), by hand for
 *   the same reason: every function that answers a page may park one (middleware/large-answers.ts), and the
 *   SDK's signer would add 14 KiB to each. Held to the SDK's presign by tests/unit/sigv4.test.ts.
 * - `awsSigner`: the SDK's own signer, @smithy/signature-v4, configured as these are: the tests' reference,
 *   and the benchmark's CPU floor's signer.
 * All sign with the function's credentials (Lambda hands them in its environment; the local runtime
 * sets them; the CLI may bring its own: `useCredentials`).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { config } from '../config';

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

/** SHA-256 and its HMAC from node:crypto, in the shape the signer takes (@smithy/types' Checksum). */
class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

const signers = new Map<string, SignatureV4>();
let credentialSource: Credentials | undefined;
const signingKeys = new Map<string, { day: string; secret: string; key: Buffer }>();

/**
 * Signs with `credentials` (a provider, asked at each signing) instead of the environment's: the CLI
 * against a deployed table, whose credentials come from the SDK's default chain (profiles, SSO ...,
 * cli/target.ts). A function's are always in its environment. `undefined`: the environment's again.
 */
export function useCredentials(credentials: Credentials | undefined): void {
  credentialSource = credentials;
  signers.clear();
  signingKeys.clear();
}

/**
 * The signer of `service` in `region`. No x-amz-content-sha256 header is added (S3's callers set it
 * themselves; other services do not ask for it), and S3's paths are signed as given (files.ts passes
 * them in their canonical form).
 */
export function awsSigner(service: string, region: string): SignatureV4 {
  const key = `${service} ${region}`;
  let signer = signers.get(key);
  if (!signer) {
    const { accessKeyId, secretAccessKey, sessionToken } = config.aws;
    signer = new SignatureV4({
      service,
      region,
      credentials: credentialSource ?? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
      sha256: Sha256,
      applyChecksum: false,
      uriEscapePath: service !== 's3',
    });
    signers.set(key, signer);
  }
  return signer;
}

interface Identity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The credentials to sign with now: the CLI's provider's (which caches them), else the environment's. */
function identity(): Identity | Promise<Identity> {
  if (credentialSource === undefined) return config.aws;
  return typeof credentialSource === 'function' ? credentialSource() : credentialSource;
}

/** Headers the SDK's signer never signs (its ALWAYS_UNSIGNABLE_HEADERS, and `proxy-*` and `sec-*`). */
const UNSIGNABLE = new Set([
  'authorization',
  'cache-control',
  'connection',
  'expect',
  'from',
  'keep-alive',
  'max-forwards',
  'pragma',
  'referer',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'user-agent',
  'x-amzn-trace-id',
]);
const signable = (name: string) => !UNSIGNABLE.has(name) && !name.startsWith('proxy-') && !name.startsWith('sec-');

/** RFC 3986's escaping, as the SDK's `escapeUri`: encodeURIComponent, and `!'()*` too (it leaves them). */
export const escapeUri = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The path as the SDK's signer canonicalises it for every service but S3: `.` and `..` resolved, escaped twice. */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailing = segments.length > 0 && path.endsWith('/') ? '/' : '';
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${trailing}`;
  return escapeUri(normalized).replace(/%2F/g, '/');
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();

/** The day's signing key, kept per service and region until the day or the secret changes. */
function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const cacheKey = `${service} ${region}`;
  const kept = signingKeys.get(cacheKey);
  if (kept && kept.day === day && kept.secret === secret) return kept.key;
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  signingKeys.set(cacheKey, { day, secret, key });
  return key;
}

export interface SignableRequest {
  service: string;
  region: string;
  method: string;
  /**
   * The request's path (`/` for DynamoDB, SQS and Secrets Manager). S3's is signed as given, in its canonical form
   * (each segment of the key escaped once: s3.ts); every other service's is resolved and escaped twice, as the SDK's
   * signer does.
   */
  path: string;
  /** Its headers, names in lower case, `host` among them. */
  headers: Record<string, string>;
  /** The body, hashed into the signature; or, with `payloadHash`, none (S3's `UNSIGNED-PAYLOAD`). */
  body: string;
  /** What stands for the body's hash (S3 takes `UNSIGNED-PAYLOAD`, sent as `x-amz-content-sha256` too). */
  payloadHash?: string;
  date: Date;
}

/**
 * A request's headers with its signature: `headers` with `x-amz-date`, the session's `x-amz-security-token` if
 * any, and `authorization`, as the SDK's signer gives them for the same request (`applyChecksum` off: no
 * `x-amz-content-sha256` added).
 */
export async function signRequest(request: SignableRequest): Promise<Record<string, string>> {
  const source = identity();
  const credentials = source instanceof Promise ? await source : source;
  return signedHeaders(request, credentials);
}

export type SignablePost = Omit<SignableRequest, 'method' | 'payloadHash'>;

/** A JSON protocol's POST, signed (signRequest). */
export const signPost = (post: SignablePost): Promise<Record<string, string>> =>
  signRequest({ ...post, method: 'POST' });

/** SigV4's time stamp of `date` (20261130T235959Z) and its day. */
function stamps(date: Date): { longDate: string; day: string } {
  const longDate = date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return { longDate, day: longDate.slice(0, 8) };
}

/** The signature of a canonical request made at `longDate` within `scope` (`<day>/<region>/<service>/aws4_request`). */
function signature(canonicalRequest: string, longDate: string, secretAccessKey: string, scope: string): string {
  const [day, region, service] = scope.split('/') as [string, string, string];
  const stringToSign = `AWS4-HMAC-SHA256\n${longDate}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  return createHmac('sha256', signingKey(secretAccessKey, day, region, service))
    .update(stringToSign, 'utf8')
    .digest('hex');
}

function signedHeaders(
  { service, region, method, path, headers, body, payloadHash, date }: SignableRequest,
  { accessKeyId, secretAccessKey, sessionToken }: Identity,
): Record<string, string> {
  const { longDate, day } = stamps(date);
  const signed: Record<string, string> = { ...headers, 'x-amz-date': longDate };
  delete signed.authorization;
  delete signed.date;
  if (sessionToken) signed['x-amz-security-token'] = sessionToken;
  const names = Object.keys(signed).filter(signable).sort();
  const headerList = names.join(';');
  let canonicalHeaders = '';
  for (const name of names) canonicalHeaders += `${name}:${signed[name]!.trim().replace(/\s+/g, ' ')}\n`;
  const canonicalUri = service === 's3' ? path : canonicalPath(path);
  const hash = payloadHash ?? sha256Hex(body);
  const canonicalRequest = `${method}\n${canonicalUri}\n\n${canonicalHeaders}\n${headerList}\n${hash}`;
  const scope = `${day}/${region}/${service}/aws4_request`;
  const credential = `Credential=${accessKeyId}/${scope}`;
  const signedWith = signature(canonicalRequest, longDate, secretAccessKey, scope);
  signed.authorization = `AWS4-HMAC-SHA256 ${credential}, SignedHeaders=${headerList}, Signature=${signedWith}`;
  return signed;
}

export interface PresignableGet {
  region: string;
  /** The object's host (with its port, locally). */
  host: string;
  /** The object's path in S3's canonical form (each segment of the key escaped once: s3.ts). */
  path: string;
  /** The link's own query parameters (S3's `response-*` overrides). */
  query: Record<string, string>;
  expiresIn: number;
  date: Date;
}

/**
 * A presigned S3 GET's query: `query` with the X-Amz-* parameters and the signature, as the SDK's signer presigns the
 * same link (only `host` signed, the payload `UNSIGNED-PAYLOAD`: the one who follows the link sends no body).
 */
export async function presignS3Get({
  region,
  host,
  path,
  query,
  expiresIn,
  date,
}: PresignableGet): Promise<Record<string, string>> {
  const source = identity();
  const { accessKeyId, secretAccessKey, sessionToken } = source instanceof Promise ? await source : source;
  const { longDate, day } = stamps(date);
  const scope = `${day}/${region}/s3/aws4_request`;
  const signed: Record<string, string> = {
    ...query,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${accessKeyId}/${scope}`,
    'X-Amz-Date': longDate,
    'X-Amz-Expires': String(expiresIn),
    ...(sessionToken ? { 'X-Amz-Security-Token': sessionToken } : {}),
    'X-Amz-SignedHeaders': 'host',
  };
  const canonicalQuery = Object.keys(signed)
    .sort()
    .map((name) => `${escapeUri(name)}=${escapeUri(signed[name]!)}`)
    .join('&');
  const canonicalRequest = `GET\n${path}\n${canonicalQuery}\nhost:${host}\n\nhost\nUNSIGNED-PAYLOAD`;
  signed['X-Amz-Signature'] = signature(canonicalRequest, longDate, secretAccessKey, scope);
  return signed;
}
