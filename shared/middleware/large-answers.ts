/**
 * Answers larger than a Lambda function may return. Lambda refuses a response payload (the handler's result, as JSON)
 * over LAMBDA_RESPONSE_LIMIT_BYTES, and API Gateway then answers 500 to a request that succeeded. A ticket whose
 * followups hold long mail threads passes it, and so does a page of 25 such tickets or 100 long followups. Such an
 * answer is parked in the bucket (answers/<uuid>.json), once, and the client is sent 303 See Other to a presigned link
 * to it, valid DOWNLOAD_LINK_SECONDS: an HTTP client follows it with a GET and reads the very body the route made, as
 * it reads an attachment's file. Every answer of a route is measured; only answers near the limit cost a second
 * serialisation, and only answers past it an S3 call.
 */
import { randomUUID } from 'node:crypto';
import { DOWNLOAD_LINK_SECONDS, presignAnswer, putFile } from '../aws/s3';
import { logger } from '../observability';
import { LARGE_ANSWER_PREFIX } from '../store/keys';
import { LAMBDA_RESPONSE_LIMIT_BYTES, bytesOver, json, type HttpResult } from './http';

/** Answers from this size are parked: the limit, with room to spare for the 303's own headers and the runtime. */
export const LARGE_ANSWER_BYTES = 6_000_000;

/**
 * `result`, or when it is too large to return, a 303 to its parked copy: for the routes whose answers can be (routes.ts
 * `answersCanBeLarge`: their functions may write the copies). Another route's too large answer fails as on Lambda (the
 * local runtime fails it too: infra/local/server.ts).
 */
export async function parkedIfLarge(result: HttpResult): Promise<HttpResult> {
  const bytes = bytesOver(result, LARGE_ANSWER_BYTES);
  if (bytes === undefined) return result;
  const { 'Content-Type': contentType = 'application/json', ...headers } = result.headers ?? {};
  const key = `${LARGE_ANSWER_PREFIX}${randomUUID()}.json`;
  await putFile(key, Buffer.from(result.body!), contentType);
  logger.info('answer parked: too large to return', { bytes, key });
  return json(
    303,
    {
      detail:
        `The answer is ${bytes} bytes, more than a function may return (${LAMBDA_RESPONSE_LIMIT_BYTES}): ` +
        `it is at the Location, a link valid for ${DOWNLOAD_LINK_SECONDS} seconds.`,
    },
    { ...headers, Location: await presignAnswer(key), 'Cache-Control': 'no-store' },
  );
}
