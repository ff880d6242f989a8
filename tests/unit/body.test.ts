import { describe, expect, it } from 'vitest';
import { HttpError, ParseError, UnsupportedMediaType, ValidationError } from '../../shared/domain/errors';
import { jsonDepth, parseBody } from '../../shared/middleware/body';
import type { HttpEvent } from '../../shared/middleware/http';

function event(contentType: string | undefined, body: string | Buffer | undefined, base64 = false): HttpEvent {
  const text =
    body === undefined
      ? undefined
      : Buffer.isBuffer(body)
        ? body.toString('base64')
        : base64
          ? Buffer.from(body).toString('base64')
          : body;
  return {
    version: '2.0',
    routeKey: 'POST /api/tickets',
    rawPath: '/api/tickets/',
    rawQueryString: '',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'POST', path: '/api/tickets/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'r',
      routeKey: 'POST /api/tickets',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    body: text,
    isBase64Encoded: Buffer.isBuffer(body) || base64,
  };
}

async function failure(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error('expected an error');
}

const BOUNDARY = '----vitestBoundary7MA4YWxk';
function multipart(
  parts: { name: string; value: string | Buffer; filename?: string; type?: string }[],
  boundary = BOUNDARY,
): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.type) head += `Content-Type: ${p.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

describe('parseBody: empty', () => {
  it('an absent or empty body is {} whatever the content type', async () => {
    for (const type of [undefined, 'application/json', 'text/plain', 'multipart/form-data']) {
      expect(await parseBody(event(type, undefined))).toEqual({ kind: 'json', data: {}, files: [] });
      expect(await parseBody(event(type, ''))).toEqual({ kind: 'json', data: {}, files: [] });
    }
  });
});

describe('parseBody: JSON', () => {
  it('refuses nesting deeper than 32 levels with a 400, whatever the depth (5,000 levels answered 500)', async () => {
    for (const depth of [33, 5000, 200_000]) {
      const body = `{"priority":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;
      await expect(parseBody(event('application/json', body))).rejects.toThrow(ParseError);
    }
    expect(jsonDepth(`{"a":${'['.repeat(31)}"[[[[{{{"${']'.repeat(31)}}`)).toBe(32); // brackets in strings do not count
    expect((await parseBody(event('application/json', `{"a":${'['.repeat(30)}1${']'.repeat(30)}}`))).kind).toBe('json');
  });

  it('parses an object', async () => {
    expect(await parseBody(event('application/json', '{"queue":1,"title":"x"}'))).toEqual({
      kind: 'json',
      data: { queue: 1, title: 'x' },
      files: [],
    });
  });

  it('accepts parameters on the media type and any case', async () => {
    expect((await parseBody(event('Application/JSON; charset=utf-8', '{"a":"é"}'))).data).toEqual({ a: 'é' });
  });

  it('decodes base64 bodies', async () => {
    expect((await parseBody(event('application/json', '{"a":1}', true))).data).toEqual({ a: 1 });
  });

  it('malformed JSON gives 400 "JSON parse error - ..."', async () => {
    const error = await failure(parseBody(event('application/json', '{"a":')));
    expect(error).toBeInstanceOf(ParseError);
    expect(error.status).toBe(400);
    expect(Object.keys(error.body)).toEqual(['detail']);
    expect(error.body.detail).toMatch(/^JSON parse error - ./);
  });

  it('a lone surrogate escape, in a value or a key, gives 400; a pair and other escapes are text', async () => {
    for (const raw of ['{"title":"\\ud800"}', '{"t":["ok","a\\udc00b"]}', '{"\\udbff":1}', '{"a":{"b":"x\\ud83d"}}']) {
      const error = await failure(parseBody(event('application/json', raw)));
      expect(error).toBeInstanceOf(ParseError);
      expect(error.body.detail).toMatch(/lone UTF-16 surrogate/);
    }
    const parsed = await parseBody(event('application/json', '{"title":"\\ud83d\\ude00 \\u00e9 \\\\ud800"}'));
    expect(parsed.data).toEqual({ title: '😀 é \\ud800' });
  });

  it('a list, string, number or boolean gives non_field_errors with its Python type', async () => {
    const cases: [string, string][] = [
      ['[1,2]', 'list'],
      ['"text"', 'str'],
      ['42', 'int'],
      ['4.5', 'float'],
      ['true', 'bool'],
    ];
    for (const [raw, type] of cases) {
      const error = await failure(parseBody(event('application/json', raw)));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.status).toBe(400);
      expect(error.body).toEqual({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${type}.`] });
    }
  });

  it('null gives "No data provided"', async () => {
    const error = await failure(parseBody(event('application/json', 'null')));
    expect(error.status).toBe(400);
    expect(error.body).toEqual({ non_field_errors: ['No data provided'] });
  });
});

describe('parseBody: urlencoded', () => {
  it('parses fields as strings, repeated names as arrays', async () => {
    const parsed = await parseBody(
      event('application/x-www-form-urlencoded', 'queue=1&title=Hello+world&tag=a&tag=b&empty=&e=%C3%A9'),
    );
    expect(parsed).toEqual({
      kind: 'form',
      data: { queue: '1', title: 'Hello world', tag: ['a', 'b'], empty: '', e: 'é' },
      files: [],
    });
  });

  it(
    'takes a field repeated 100,000 times (copying the list at each repeat, 5·10^9 copies, outran the test ' +
      'timeout)',
    async () => {
      const body = Array.from({ length: 100_000 }, (_, i) => `title=${i}`).join('&');
      const parsed = await parseBody(event('application/x-www-form-urlencoded', body));
      expect((parsed.data.title as string[]).length).toBe(100_000);
      expect((parsed.data.title as string[])[99_999]).toBe('99999');
    },
  );

  it('accepts a charset parameter', async () => {
    expect((await parseBody(event('application/x-www-form-urlencoded; charset=UTF-8', 'a=1'))).data).toEqual({
      a: '1',
    });
  });
});

describe('parseBody: multipart', () => {
  const type = `multipart/form-data; boundary=${BOUNDARY}`;

  it('parses fields and files', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    const body = multipart([
      { name: 'ticket', value: '1' },
      { name: 'title', value: 'Test ticket answer' },
      { name: 'comment', value: 'é ünïcode' },
      { name: 'attachments', value: 'hello notes\n', filename: 'notes.txt', type: 'text/plain' },
      { name: 'attachments', value: png, filename: 'pixel.png' },
    ]);
    const parsed = await parseBody(event(type, body));
    expect(parsed.kind).toBe('form');
    expect(parsed.data).toEqual({ ticket: '1', title: 'Test ticket answer', comment: 'é ünïcode' });
    expect(parsed.files).toHaveLength(2);
    expect(parsed.files[0]).toMatchObject({ field: 'attachments', filename: 'notes.txt', contentType: 'text/plain' });
    expect(parsed.files[0]!.data.toString()).toBe('hello notes\n');
    // No part Content-Type: guessed from the name.
    expect(parsed.files[1]).toMatchObject({ field: 'attachments', filename: 'pixel.png', contentType: 'image/png' });
    expect(parsed.files[1]!.data.equals(png)).toBe(true);
  });

  it('keeps empty files (validation refuses them later) and sanitises file names', async () => {
    const body = multipart([
      { name: 'attachment', value: '', filename: '../../etc/passwd', type: 'application/octet-stream' },
    ]);
    const parsed = await parseBody(event(type, body));
    expect(parsed.files).toHaveLength(1);
    expect(parsed.files[0]).toMatchObject({
      field: 'attachment',
      filename: 'passwd',
      contentType: 'application/octet-stream',
    });
    expect(parsed.files[0]!.data.length).toBe(0);
  });

  it("the part's own Content-Type wins; without one the type is guessed from the name", async () => {
    const body = multipart([
      { name: 'blob', value: 'raw field', type: 'application/octet-stream' },
      { name: 'f', value: 'x', filename: 'pixel.png', type: 'text/plain' },
      { name: 'f', value: 'x', filename: 'doc.pdf' },
      { name: 'f', value: 'x', filename: 'noext' },
      { name: 'f', value: 'x', filename: 'data.bin', type: 'application/x-custom; charset=binary' },
    ]);
    const parsed = await parseBody(event(`multipart/form-data; boundary="${BOUNDARY}"`, body));
    expect(parsed.data).toEqual({ blob: 'raw field' });
    expect(parsed.files.map((f) => [f.filename, f.contentType])).toEqual([
      ['pixel.png', 'text/plain'],
      ['doc.pdf', 'application/pdf'],
      ['noext', 'application/octet-stream'],
      ['data.bin', 'application/x-custom'],
    ]);
  });

  it('repeated fields become arrays', async () => {
    const body = multipart([
      { name: 'a', value: '1' },
      { name: 'a', value: '2' },
    ]);
    expect((await parseBody(event(type, body))).data).toEqual({ a: ['1', '2'] });
  });

  it('a missing boundary is 400 "Multipart form parse error - ..."', async () => {
    const error = await failure(parseBody(event('multipart/form-data', multipart([{ name: 'a', value: '1' }]))));
    expect(error).toBeInstanceOf(ParseError);
    expect(error.status).toBe(400);
    expect(error.body.detail).toMatch(/^Multipart form parse error - ./);
  });

  it('a truncated body is 400 "Multipart form parse error - ..."', async () => {
    const whole = multipart([{ name: 'attachments', value: 'x'.repeat(100), filename: 'a.txt' }]);
    const error = await failure(parseBody(event(type, whole.subarray(0, 120))));
    expect(error.status).toBe(400);
    expect(error.body.detail).toMatch(/^Multipart form parse error - ./);
  });
});

describe('parseBody: other content types', () => {
  it('415 names the full content type', async () => {
    const error = await failure(parseBody(event('text/plain', 'hello')));
    expect(error).toBeInstanceOf(UnsupportedMediaType);
    expect(error.status).toBe(415);
    expect(error.body).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
    const withCharset = await failure(parseBody(event('text/plain; charset=utf-8', 'hello')));
    expect(withCharset.body).toEqual({ detail: 'Unsupported media type "text/plain; charset=utf-8" in request.' });
  });

  it('415 for a body without a content type', async () => {
    const error = await failure(parseBody(event(undefined, '{"a":1}')));
    expect(error.status).toBe(415);
    expect(error.body).toEqual({ detail: 'Unsupported media type "" in request.' });
  });
});
