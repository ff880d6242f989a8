/**
 * Attachment files in the private bucket, through S3's REST API signed with SigV4 (sigv4.ts): the full S3
 * client would add ~160 KB to every function that touches a file, for three calls. Downloads go through
 * short-lived presigned GETs (sigv4.ts presignS3Get).
 */
import { config } from '../config';
import { logger } from '../observability';
import { callHeaders } from './aws-request';
import { escapeUri, presignS3Get, signRequest } from './sigv4';

/** How long a download link stays valid. */
export const DOWNLOAD_LINK_SECONDS = 300;

/** S3 takes the payload's hash as this when it is not signed (a body sent as it is, a presigned GET). */
const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
const CONTENT_SHA256 = 'x-amz-content-sha256';

/** S3's canonical path of `url`: each segment of the key escaped once. */
const canonicalS3Path = (url: URL) => decodeURIComponent(url.pathname).split('/').map(escapeUri).join('/');

/** Retries of an S3 call that S3 answers with a 5xx or 429. */
const S3_RETRIES = 3;

/** The object's URL: virtual-hosted on AWS, path-style on the local S3 engine. */
function objectUrl(key: string, bucket = config.bucketName): URL {
  const path = key.split('/').map(encodeURIComponent).join('/');
  const { s3Endpoint, region } = config.aws;
  if (s3Endpoint && config.s3ForcePathStyle) return new URL(`${s3Endpoint.replace(/\/$/, '')}/${bucket}/${path}`);
  return new URL(`https://${bucket}.s3.${region}.amazonaws.com/${path}`);
}

/**
 * How long one S3 call may take, its retries included: far more than a 4 MiB upload needs within a
 * region, and little enough that a hung call still lets the function answer before its timeout.
 * HELPDESK_DEPENDENCY_TIMEOUT_MS replaces it (the local runtime's engines are slower: clients.ts).
 */
export const S3_CALL_TIMEOUT_MS = 4000;
const s3CallTimeoutMs = config.dependencyTimeoutMs ?? S3_CALL_TIMEOUT_MS;

/**
 * One S3 call, signed (the body unsigned, as S3 allows over HTTPS), sent again after a 5xx or 429
 * (with jitter, signed again). A network failure or a call past its timeout rejects fetch: it
 * becomes a named error, which the API answers with a retryable 503.
 *
 * The signal goes to fetch itself, not to a Request made beforehand: undici's Request follows a
 * signal through a weak reference, so once such a wrapper is garbage-collected the abort no longer
 * reaches the call (seen under load with aws4fetch, which made one: a hung call outlived its timeout
 * by minutes).
 */
async function s3Fetch(
  url: URL,
  method: string,
  action: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`S3 ${action} took over ${s3CallTimeoutMs} ms`, 'TimeoutError')),
    s3CallTimeoutMs,
  );
  try {
    for (let attempt = 0; ; attempt++) {
      const signed = await signRequest({
        service: 's3',
        region: config.aws.region,
        method,
        path: canonicalS3Path(url),
        headers: { host: url.host, ...headers, [CONTENT_SHA256]: UNSIGNED_PAYLOAD },
        body: '',
        payloadHash: UNSIGNED_PAYLOAD,
        date: new Date(),
      });
      // Signed with the host, which fetch sends from the URL itself.
      const { host: _host, ...sent } = signed;
      const response = await fetch(url, {
        method,
        headers: { ...sent, ...callHeaders('s3') },
        ...(body ? { body } : {}),
        signal: controller.signal,
      });
      if (attempt === S3_RETRIES || (response.status < 500 && response.status !== 429)) return response;
      await response.body?.cancel();
      await new Promise((done) => setTimeout(done, Math.random() * 50 * 2 ** attempt));
    }
  } catch (error) {
    throw Object.assign(new Error(`S3 ${action} failed: ${(error as Error).message}`), {
      name: 'S3NetworkError',
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

async function expectOk(response: Response, action: string): Promise<void> {
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const text = await response.text();
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP${response.status}`;
  throw Object.assign(new Error(`S3 ${action} failed: ${code}`), {
    name: code,
    $metadata: { httpStatusCode: response.status },
  });
}

/** Stores an object (in the attachments bucket unless `bucket` names another: the mail bucket). */
export async function putFile(key: string, data: Buffer, contentType: string, bucket?: string): Promise<void> {
  const response = await s3Fetch(
    objectUrl(key, bucket),
    'PUT',
    'PutObject',
    { 'content-type': contentType, 'content-length': String(data.length) },
    data,
  );
  await expectOk(response, 'PutObject');
}

/**
 * An object's bytes: a followup's small files (the mail sender attaches them), a received message (the mail ingest,
 * from the mail bucket).
 */
export async function getFile(key: string, bucket?: string): Promise<Buffer> {
  const response = await s3Fetch(objectUrl(key, bucket), 'GET', 'GetObject');
  if (!response.ok) await expectOk(response, 'GetObject');
  return Buffer.from(await response.arrayBuffer());
}

async function deleteFile(key: string): Promise<void> {
  const response = await s3Fetch(objectUrl(key), 'DELETE', 'DeleteObject');
  if (response.status !== 404) await expectOk(response, 'DeleteObject');
}

/** Deletes objects (a few at a time); returns the keys that failed (logged, never thrown). */
export async function deleteFiles(keys: string[]): Promise<string[]> {
  const failed: string[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    const batch = keys.slice(i, i + 10);
    const results = await Promise.allSettled(batch.map(deleteFile));
    results.forEach((r, j) => r.status === 'rejected' && failed.push(batch[j]!));
  }
  if (failed.length) logger.warn('attachment files not deleted yet (their cleanup record stays)', { keys: failed });
  return failed;
}

/** RFC 6266 `attachment` disposition with an ASCII fallback and the UTF-8 name. */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** A presigned GET of an attachment, valid `expiresIn` seconds (DOWNLOAD_LINK_SECONDS, or a mail's longer link). */
export function presignDownload(
  key: string,
  filename: string,
  mimeType: string,
  expiresIn = DOWNLOAD_LINK_SECONDS,
): Promise<string> {
  return presignGet(
    key,
    { 'response-content-disposition': attachmentDisposition(filename), 'response-content-type': mimeType },
    expiresIn,
  );
}

/** A presigned GET of a parked answer (middleware/large-answers.ts): JSON, inline, valid DOWNLOAD_LINK_SECONDS. */
export function presignAnswer(key: string): Promise<string> {
  return presignGet(key, { 'response-content-type': 'application/json' }, DOWNLOAD_LINK_SECONDS);
}

/** A presigned GET of an object, S3 answering with the `response-*` headers `answerAs` names. */
async function presignGet(key: string, answerAs: Record<string, string>, expiresIn: number): Promise<string> {
  const url = objectUrl(key);
  const query = await presignS3Get({
    region: config.aws.region,
    host: url.host,
    path: canonicalS3Path(url),
    query: answerAs,
    expiresIn,
    date: new Date(),
  });
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}
