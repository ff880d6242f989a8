/**
 * One webhook POST. Node's http client rather than fetch, for two things fetch cannot do: check the
 * address a host name resolves to at connection time (so DNS cannot point a validated name at the
 * metadata service), and bound the whole exchange, body included, by one timeout.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { refusedAddress, refusedUrl, sendFailure, REFUSED_ADDRESS } from '../domain/webhooks';

export interface SendOptions {
  timeoutMs: number;
  allowLoopback: boolean;
}

/**
 * The receiver's status code, or why there is none: `error` in words for the delivery log and ping
 * (domain `sendFailure`), `detail` the error's code and text for the logs only. Never throws.
 */
export type SendOutcome =
  { status: number; error?: undefined; detail?: undefined } | { status?: undefined; error: string; detail?: string };

/** Receivers' answers are not used: read at most this much of them, then let go. */
const MAX_RESPONSE_BYTES = 64 * 1024;

function guardedLookup(allowLoopback: boolean): RequestOptions['lookup'] {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (e: Error | null, a: string | LookupAddress[], f?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses;
      const refused = list.map((a) => refusedAddress(a.address, allowLoopback)).find(Boolean);
      if (refused)
        return callback(Object.assign(new Error(`${hostname} resolves to ${refused}`), { code: REFUSED_ADDRESS }), []);
      if (options.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/**
 * Posts `body` to `url`. The URL passes the receiver rules again first (a stored URL is sent to only
 * if it would be accepted now): an IP literal is never looked up, so the lookup's check alone would
 * let a stored http://127.0.0.1 or http://10.0.0.8 through, and an http URL outside the local
 * runtime would travel unencrypted.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendOutcome> {
  const refused = refusedUrl(url, options.allowLoopback);
  if (refused) return Promise.resolve({ error: `not sent: ${refused}` });
  return new Promise((resolve) => {
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const payload = Buffer.from(body);
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const req = request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
        lookup: guardedLookup(options.allowLoopback),
        agent: false,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) finish({ status: res.statusCode ?? 0 });
        });
        res.on('end', () => finish({ status: res.statusCode ?? 0 }));
        res.on('error', () => finish({ status: res.statusCode ?? 0 }));
      },
    );
    const timer = setTimeout(
      () => finish({ error: `timed out: no answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    req.on('error', (error: Error & { code?: string }) =>
      finish({
        error: sendFailure(error.code),
        detail: error.code ? `${error.code}: ${error.message}` : error.message,
      }),
    );
    req.end(payload);
  });
}
