/**
 * S3 calls signed by shared/aws/s3.ts (sigv4.ts: signRequest, and the SDK's signer for links) carry the signature
 * aws4fetch gives the same request at the same time (aws4fetch signed them before, against S3 and
 * the local engine alike): PUT, GET and DELETE headers, and the presigned download link's query.
 */
import { AwsClient } from 'aws4fetch';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
process.env.AWS_SESSION_TOKEN = 'session';
process.env.BUCKET_NAME = 'helpdesk-files';
delete process.env.AWS_ENDPOINT_URL_S3;
const { putFile, getFile, deleteFiles, presignDownload, DOWNLOAD_LINK_SECONDS } = await import('../../shared/aws/s3');

const aws4 = new AwsClient({
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'secret',
  sessionToken: 'session',
  service: 's3',
  region: 'eu-west-1',
});
const KEY = "attachments/7/0b1c/Report (final)!'*.pdf";
const KEY_PATH = KEY.split('/').map(encodeURIComponent).join('/');
const URL_OF_KEY = `https://helpdesk-files.s3.eu-west-1.amazonaws.com/${KEY_PATH}`;

const sent: Request[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-25T18:00:00Z') });
  vi.stubGlobal('fetch', (input: URL, init: RequestInit) => {
    sent.push(new Request(input, init));
    return Promise.resolve(new Response(null, { status: init.method === 'DELETE' ? 204 : 200 }));
  });
});
afterEach(() => {
  sent.length = 0;
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('S3 signatures', () => {
  it('PUT: the same Authorization as aws4fetch (signing every header, as this signer does)', async () => {
    await putFile(KEY, Buffer.from('%PDF'), 'application/pdf');
    const expected = await aws4.sign(URL_OF_KEY, {
      method: 'PUT',
      headers: { 'content-type': 'application/pdf', 'content-length': '4' },
      aws: { allHeaders: true },
    });
    const [put] = sent;
    expect(put!.url).toBe(URL_OF_KEY);
    expect(put!.headers.get('x-amz-content-sha256')).toBe('UNSIGNED-PAYLOAD');
    expect(put!.headers.get('x-amz-security-token')).toBe('session');
    expect(put!.headers.get('authorization')).toBe(expected.headers.get('authorization'));
    expect(Buffer.from(await put!.arrayBuffer()).toString()).toBe('%PDF');
    // As the SDK's client sends it, unsigned (the store's other AWS calls: dynamodb-client.test.ts).
    expect(put!.headers.get('user-agent')).toMatch(/^helpdesk-api ua\/2\.1 .* api\/s3( |$)/);
  });

  it('DELETE: the same Authorization as aws4fetch', async () => {
    expect(await deleteFiles([KEY])).toEqual([]);
    const expected = await aws4.sign(URL_OF_KEY, { method: 'DELETE' });
    expect(sent[0]!.method).toBe('DELETE');
    expect(sent[0]!.headers.get('authorization')).toBe(expected.headers.get('authorization'));
  });

  it('GET: the same Authorization as aws4fetch', async () => {
    await getFile(KEY);
    const expected = await aws4.sign(URL_OF_KEY, { method: 'GET' });
    expect(sent[0]!.method).toBe('GET');
    expect(sent[0]!.headers.get('authorization')).toBe(expected.headers.get('authorization'));
  });

  it('a presigned download: the same query, signature included, as aws4fetch signs', async () => {
    const link = new URL(await presignDownload(KEY, 'Report (final).pdf', 'application/pdf'));
    const wanted = new URL(URL_OF_KEY);
    wanted.searchParams.set('X-Amz-Expires', String(DOWNLOAD_LINK_SECONDS));
    wanted.searchParams.set('response-content-disposition', link.searchParams.get('response-content-disposition')!);
    wanted.searchParams.set('response-content-type', 'application/pdf');
    const expected = new URL((await aws4.sign(wanted.toString(), { method: 'GET', aws: { signQuery: true } })).url);
    const sorted = (u: URL) => [...u.searchParams].sort(([a], [b]) => (a < b ? -1 : 1));
    expect(link.origin + link.pathname).toBe(expected.origin + expected.pathname);
    expect(sorted(link)).toEqual(sorted(expected));
    expect(link.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
  });
});
