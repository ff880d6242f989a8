/**
 * `Idempotency-Key` on POST (as Stripe's and the IETF draft's): the same key with the same request
 * within 24 hours answers the first response again, without running the operation (no second
 * record, no second webhook); with a different request it is a 422; while the first still runs, a
 * 409. Keys are scoped to the user and the operation. Only answers below 500 are kept: after a 5xx
 * nothing was stored, so the key is freed for the retry. A success answer that holds a secret (a new
 * token's key, shown once) is never stored: its replay is a 409 naming what was created.
 */
import { createHash } from 'node:crypto';
import type middy from '@middy/core';
import { canonicalJson } from '../domain/canonical-json';
import { HttpError } from '../domain/errors';
import { logger } from '../observability';
import { claimKey, completeKey, releaseKey, type StoredResponse } from '../store/idempotency';
import { header, type ApiEvent, type HttpResult } from './http';

/** Keep answers up to this size (a DynamoDB item holds 400 KB); a larger one frees the key instead. */
const MAX_STORED_BODY = 300_000;

/**
 * The stored answer of the first request, answered again (through the chain's error path, which adds the headers every
 * answer gets).
 */
export class Replay extends HttpError {
  constructor(response: StoredResponse) {
    super(response.statusCode, JSON.parse(response.body) as Record<string, unknown>, {
      ...response.headers,
      'Idempotent-Replayed': 'true',
    });
  }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('base64');

/**
 * What makes two requests the same: the path, the query and the body as parsed (its kind, its
 * fields with keys sorted, and each file's field, name, type and content), so that a retry is
 * recognised whatever its JSON spacing, key order or multipart boundary (which clients make anew
 * for every request). A body that cannot be parsed counts by its bytes and content type.
 */
async function fingerprint(event: ApiEvent): Promise<string> {
  const where = [event.rawPath.replace(/\/$/, ''), event.rawQueryString];
  try {
    const body = await event.parseBody!();
    const files = body.files.map((f) => [f.field, f.filename, f.contentType ?? null, sha256(f.data)]);
    return sha256(canonicalJson([...where, body.kind, body.data, files]));
  } catch {
    const raw =
      event.body === undefined
        ? ''
        : event.isBase64Encoded
          ? event.body
          : Buffer.from(event.body, 'utf8').toString('base64');
    return sha256(canonicalJson([...where, header(event, 'content-type') ?? '', raw]));
  }
}

const SCOPE = Symbol('idempotency scope');
type Scoped = ApiEvent & { [SCOPE]?: string };

/** What a replay answers in place of a success whose answer held a secret: never the secret. */
export function withheldAnswer(body: string): StoredResponse {
  const id = (JSON.parse(body) as { id?: unknown }).id;
  const created = typeof id === 'number' ? ` (id ${id})` : '';
  const detail =
    `A request with this Idempotency-Key already succeeded${created}; its answer held a secret that ` +
    `is shown only once, so ` +
    `it is not repeated.`;
  return { statusCode: 409, headers: {}, body: JSON.stringify({ detail }) };
}

export function idempotency(
  operation: string,
  options: { answerHoldsSecret: boolean },
): middy.MiddlewareObj<ApiEvent, HttpResult> {
  const keep = async (event: Scoped, response: HttpResult) => {
    const scope = event[SCOPE];
    if (!scope) return;
    event[SCOPE] = undefined;
    const body = response.body ?? '';
    try {
      if (response.statusCode >= 500 || body.length > MAX_STORED_BODY || !body) await releaseKey(scope);
      else if (options.answerHoldsSecret && response.statusCode < 300) await completeKey(scope, withheldAnswer(body));
      else await completeKey(scope, { statusCode: response.statusCode, headers: response.headers ?? {}, body });
    } catch (error) {
      // The answer stands: its write happened (or not) whatever becomes of the key. Only the replay
      // is lost: the key stays claimed until its lock lapses (60 s), and then runs anew.
      logger.warn('Idempotency-Key record not updated', { status: response.statusCode, error: String(error) });
    }
  };
  return {
    before: async (request) => {
      const event = request.event as Scoped;
      const key = header(event, 'idempotency-key');
      if (event.requestContext.http.method !== 'POST' || key === undefined) return;
      if (!/^[\x21-\x7e]{1,255}$/.test(key))
        throw new HttpError(400, { detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' });
      const scope = `${event.user!.id}:${operation}:${createHash('sha256').update(key).digest('base64url')}`;
      const print = await fingerprint(event);
      const earlier = await claimKey(scope, print, new Date());
      if (!earlier) {
        event[SCOPE] = scope;
        return;
      }
      if (earlier.fingerprint !== print)
        throw new HttpError(422, { detail: 'This Idempotency-Key was already used with a different request.' });
      if (earlier.status === 'completed' && earlier.response) throw new Replay(earlier.response);
      throw new HttpError(
        409,
        { detail: 'A request with this Idempotency-Key is still being processed.' },
        { 'Retry-After': '1' },
      );
    },
    after: async (request) => keep(request.event, request.response!),
    onError: async (request) => {
      const error = request.error;
      const scope = (request.event as Scoped)[SCOPE];
      if (!scope) return;
      // A client error is the request's answer (kept); anything else changed nothing (freed).
      if (error instanceof HttpError && error.status < 500)
        await keep(request.event, {
          statusCode: error.status,
          headers: error.headers,
          body: JSON.stringify(error.body),
        });
      else await keep(request.event, { statusCode: 500 });
    },
  };
}
