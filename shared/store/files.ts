/**
 * Attachment files in the private bucket, through S3's REST API signed with aws4fetch (SigV4): the
 * full S3 client would add ~160 KB to every function that touches a file, for three calls.
 * Downloads go through short-lived presigned GETs.
 */
import { AwsClient } from 'aws4fetch';
import { config } from '../config';
import { logger } from '../observability';

/** How long a download link stays valid. */
export const DOWNLOAD_LINK_SECONDS = 300;

let client: AwsClient | undefined;
function s3(): AwsClient {
  // Lambda hands the function's credentials in its environment; the local runtime sets them too.
  const { accessKeyId, secretAccessKey, sessionToken, region } = config.aws;
  client ??= new AwsClient({ accessKeyId, secretAccessKey, sessionToken, service: 's3', region });
  return client;
}

/** Retries of an S3 call that S3 answers with a 5xx or 429 (as aws4fetch's own loop, which s3Fetch replaces). */
const S3_RETRIES = 3;

/** The object's URL: virtual-hosted on AWS, path-style on the local S3 engine. */
function objectUrl(key: string): URL {
  const path = key.split('/').map(encodeURIComponent).join('/');
  const { s3Endpoint, region } = config.aws;
  if (s3Endpoint && config.s3ForcePathStyle) return new URL(`${s3Endpoint.replace(/\/$/, '')}/${config.bucketName}/${path}`);
  return new URL(`https://${config.bucketName}.s3.${region}.amazonaws.com/${path}`);
}

/**
 * How long one S3 call may take, its retries included: far more than a 4 MiB upload needs within a
 * region, and little enough that a hung call still lets the function answer before its timeout.
 * HELPDESK_DEPENDENCY_TIMEOUT_MS replaces it (the local runtime's engines are slower: clients.ts).
 */
export const S3_CALL_TIMEOUT_MS = 4000;
const s3CallTimeoutMs = config.dependencyTimeoutMs ?? S3_CALL_TIMEOUT_MS;

/**
 * One S3 call, signed by aws4fetch, sent again after a 5xx or 429 (with jitter). A network failure
 * or a call past its timeout rejects fetch: it becomes a named error, which the API answers with a
 * retryable 503.
 *
 * The signal goes to fetch itself, not through aws4fetch's `fetch`: that wraps the call in a Request
 * of its own, and undici's Request follows a signal through a weak reference, so once the wrapper is
 * garbage-collected the abort no longer reaches the call (seen under load: a hung call outlived its
 * timeout by minutes).
 */
async function s3Fetch(url: URL, init: RequestInit, action: string): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`S3 ${action} took over ${s3CallTimeoutMs} ms`, 'TimeoutError')), s3CallTimeoutMs);
  try {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(await s3().sign(url.toString(), init), { signal: controller.signal });
      if (attempt === S3_RETRIES || (response.status < 500 && response.status !== 429)) return response;
      await response.body?.cancel();
      await new Promise((done) => setTimeout(done, Math.random() * 50 * 2 ** attempt));
    }
  } catch (error) {
    throw Object.assign(new Error(`S3 ${action} failed: ${(error as Error).message}`), { name: 'S3NetworkError', cause: error });
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
  throw Object.assign(new Error(`S3 ${action} failed: ${code}`), { name: code, $metadata: { httpStatusCode: response.status } });
}

export async function putFile(key: string, data: Buffer, contentType: string): Promise<void> {
  const response = await s3Fetch(
    objectUrl(key),
    { method: 'PUT', body: data, headers: { 'Content-Type': contentType, 'Content-Length': String(data.length) } },
    'PutObject',
  );
  await expectOk(response, 'PutObject');
}

async function deleteFile(key: string): Promise<void> {
  const response = await s3Fetch(objectUrl(key), { method: 'DELETE' }, 'DeleteObject');
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

export async function presignDownload(key: string, filename: string, mimeType: string): Promise<string> {
  const url = objectUrl(key);
  url.searchParams.set('X-Amz-Expires', String(DOWNLOAD_LINK_SECONDS));
  url.searchParams.set('response-content-disposition', attachmentDisposition(filename));
  url.searchParams.set('response-content-type', mimeType);
  const signed = await s3().sign(url.toString(), { method: 'GET', aws: { signQuery: true } });
  return signed.url;
}
