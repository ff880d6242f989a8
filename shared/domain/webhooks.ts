/**
 * Webhooks: upstream's settings and payloads, delivered the Standard Webhooks way
 * (https://www.standardwebhooks.com): signed, retried with backoff, one stable `webhook-id` per
 * delivery. Pure rules only; sending lives in shared/webhooks, storage in shared/store.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { EventType } from './events';
import { wireIsoDateTime } from './datetime';
import type { EventActor } from './actor';

/** The two events upstream fires, under the names our delivery log shows. */
export type WebhookEvent = 'ticket.created' | 'followup.created';

export interface WebhookSettings {
  urls: Record<WebhookEvent, string[]>;
  /**
   * Whether payloads carry what only staff see (private followups with their files, staff-only
   * custom fields): HELPDESK_WEBHOOK_INCLUDE_PRIVATE=true, for receivers the operator trusts with
   * them. Off by default: a receiver sees what the ticket's submitter could.
   */
  includePrivate: boolean;
  timeoutMs: number;
  /** Seconds to wait before each retry; one attempt more than there are delays. */
  retryDelays: number[];
}

/**
 * The Standard Webhooks schedule after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (27 h 35 min in all, so a receiver may be down for a whole day and still get every event).
 */
export const DEFAULT_RETRY_DELAYS = [5, 300, 1800, 7200, 18000, 36000, 36000];
export const DEFAULT_TIMEOUT_SECONDS = 3;
/** Delivery records are kept this long (DynamoDB TTL), then disappear from the log. */
export const DELIVERY_RETENTION_DAYS = 30;
export const USER_AGENT = 'helpdesk-api-webhooks/1.0';

export class WebhookSettingsError extends Error {}

/** A URL list setting: split at commas with any whitespace around them (upstream needs exactly " , "). */
export function parseUrlList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/**
 * Addresses no receiver may have, beyond the named cases below: private (RFC 1918, IPv6 unique
 * local), shared (carrier-grade NAT), benchmarking, documentation, multicast and reserved ranges, so
 * that a receiver URL can never reach the function's own network.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['fc00::', 7],
  ['ff00::', 8],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['2001::', 32],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

/** An IPv6 address's eight 16-bit groups (a dotted IPv4 tail counts as two), or undefined. */
function ipv6Groups(ip: string): number[] | undefined {
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  const group = (high: string, low: string) => ((+high << 8) | +low).toString(16);
  const text = dotted ? `${dotted[1]}${group(dotted[2]!, dotted[3]!)}:${group(dotted[4]!, dotted[5]!)}` : ip;
  const [head, tail, ...more] = text.split('::');
  if (more.length) return undefined;
  const part = (p: string | undefined) => (p ? p.split(':').map((g) => parseInt(g, 16)) : []);
  const [left, right] = [part(head), part(tail)];
  const groups =
    tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 address carries, in the forms that reach an IPv4 host: mapped
 * (::ffff:0:0/96), translated (::ffff:0:0:0/96, RFC 2765), compatible (::/96, but :: and ::1), and
 * the well-known NAT64 prefix (64:ff9b::/96), dotted or (as URL normalises it) hex:
 * ::ffff:169.254.169.254 = ::ffff:a9fe:a9fe = ::ffff:0:a9fe:a9fe reach the same host.
 */
function embeddedIpv4(ip: string): string | undefined {
  const g = ipv6Groups(ip);
  if (!g) return undefined;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const carries =
    (zero(0, 5) && g[5] === 0xffff) || // mapped
    (zero(0, 4) && g[4] === 0xffff && g[5] === 0) || // translated
    (zero(0, 6) && (g[6] !== 0 || g[7]! > 1)) || // compatible
    (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)); // NAT64
  return carries ? `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}` : undefined;
}

/** Why an address may not receive webhooks, or undefined when it may. */
export function refusedAddress(address: string, allowLoopback: boolean): string | undefined {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  const version = isIP(ip);
  if (version === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    if (a === 169 && b === 254) return 'a link-local or cloud metadata address';
    if (a === 0) return 'an unspecified address';
    if (a === 127 && !allowLoopback) return 'a loopback address (allowed only in the local runtime)';
    if (a === 100 && b === 100) return 'a cloud metadata address'; // Alibaba's 100.100.100.200
    if (PRIVATE.check(ip, 'ipv4')) return 'a private or reserved address';
  } else if (version === 6) {
    const embedded = embeddedIpv4(ip);
    if (embedded) return refusedAddress(embedded, allowLoopback);
    const groups = ipv6Groups(ip);
    // RFC 8215's local-use NAT64 prefix, 64:ff9b:1::/48: any IPv4 address may be inside, anywhere.
    if (groups && groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return 'a private or reserved address';
    if (/^fe[89ab]/.test(ip)) return 'a link-local address';
    if (/^fe[c-f]/.test(ip)) return 'a site-local address';
    if (ip === 'fd00:ec2::254') return 'a cloud metadata address';
    if (ip === '::') return 'an unspecified address';
    if (ip === '::1' && !allowLoopback) return 'a loopback address (allowed only in the local runtime)';
    if (PRIVATE.check(ip, 'ipv6')) return 'a private or reserved address';
  }
  return undefined;
}

/** Checks one receiver URL; returns the reason it is refused, or undefined. */
export function refusedUrl(value: string, allowLoopback: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https URLs are allowed';
  if (url.username || url.password) return 'credentials in the URL are not allowed';
  const host = url.hostname.toLowerCase().replace(/\.$/, ''); // `metadata.google.internal.` is the same host
  if (METADATA_HOSTS.has(host)) return 'a cloud metadata host';
  if (!allowLoopback && (host === 'localhost' || host.endsWith('.localhost')))
    return 'a loopback address (allowed only in the local runtime)';
  const address = refusedAddress(host, allowLoopback);
  if (address) return address;
  // Payloads carry tickets: outside the local runtime they travel encrypted only.
  if (url.protocol === 'http:' && !allowLoopback) return 'only https URLs are allowed outside the local runtime';
  return undefined;
}

/**
 * Why a send got no answer, in the words a superuser needs (ping's answer, the delivery log's
 * `last_error`), from the error's code: never the socket's or the TLS library's own text, and no
 * distinction that would map a network (an address receivers may not have is never connected to,
 * so nothing is learnt of its ports; unreachable, reset and the like are one "connection failed").
 * The code itself goes to the logs only.
 */
export function sendFailure(code: string | undefined): string {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timed out';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA' || code === 'EAI_FAIL')
    return 'DNS failed: the host name did not resolve';
  if (code === REFUSED_ADDRESS) return 'not sent: the host name resolves to an address receivers may not have';
  if (code && (code === 'EPROTO' || /^ERR_(TLS|SSL)_|CERT|^ERR_OSSL/.test(code)))
    return 'TLS failed: the connection could not be secured with a trusted certificate';
  return 'connection failed';
}

/** The code of a connection refused because its host name resolves to an address receivers may not have. */
export const REFUSED_ADDRESS = 'EREFUSEDADDRESS';

/** Reads and validates the settings; throws WebhookSettingsError naming every bad entry. */
export function parseWebhookSettings(env: Record<string, string | undefined>, allowLoopback: boolean): WebhookSettings {
  const urls = {
    'ticket.created': parseUrlList(env.HELPDESK_NEW_TICKET_WEBHOOK_URLS),
    'followup.created': parseUrlList(env.HELPDESK_FOLLOWUP_WEBHOOK_URLS),
  };
  const problems = [
    ...urls['ticket.created'].map((u) => ['HELPDESK_NEW_TICKET_WEBHOOK_URLS', u] as const),
    ...urls['followup.created'].map((u) => ['HELPDESK_FOLLOWUP_WEBHOOK_URLS', u] as const),
  ].flatMap(([name, url]) => {
    const reason = refusedUrl(url, allowLoopback);
    return reason ? [`${name}: ${url}: ${reason}`] : [];
  });
  const timeout = Number(env.HELPDESK_WEBHOOK_TIMEOUT ?? DEFAULT_TIMEOUT_SECONDS);
  if (!(timeout > 0 && timeout <= 60))
    problems.push(`HELPDESK_WEBHOOK_TIMEOUT: ${env.HELPDESK_WEBHOOK_TIMEOUT}: seconds between 0 and 60`);
  const retryDelays = env.HELPDESK_WEBHOOK_RETRY_DELAYS
    ? env.HELPDESK_WEBHOOK_RETRY_DELAYS.split(',').map((s) => Number(s.trim()))
    : DEFAULT_RETRY_DELAYS;
  // SQS can hide a message for at most 12 hours between two attempts.
  if (retryDelays.some((d) => !(d >= 0 && d <= 43200)))
    problems.push(`HELPDESK_WEBHOOK_RETRY_DELAYS: seconds between 0 and 43200, comma-separated`);
  const includePrivate = (env.HELPDESK_WEBHOOK_INCLUDE_PRIVATE ?? 'false').trim();
  if (includePrivate !== 'true' && includePrivate !== 'false')
    problems.push(`HELPDESK_WEBHOOK_INCLUDE_PRIVATE: ${includePrivate}: true or false`);
  if (problems.length) throw new WebhookSettingsError(`Invalid webhook settings:\n  ${problems.join('\n  ')}`);
  return { urls, includePrivate: includePrivate === 'true', timeoutMs: timeout * 1000, retryDelays };
}

/**
 * Upstream's payloads: the ticket as the API shows it, its queue's slug, and the new followup's id; then who made the
 * change (`actor`, `source`: domain/actor.ts), as change events and subscriptions' payloads name it (upstream has no
 * such keys: receivers that read only its keys are not disturbed).
 */
export function webhookPayload(
  event: WebhookEvent,
  ticket: unknown,
  queueSlug: string,
  followupId: number | undefined,
  by: EventActor,
): Record<string, unknown> {
  const upstream =
    event === 'followup.created'
      ? { ticket, queue_slug: queueSlug, followup_id: followupId }
      : { ticket, queue_slug: queueSlug };
  return { ...upstream, actor: by.actor, source: by.source };
}

/**
 * Ids that sort by creation time (newest last) and say what they are: `evt_` for an outbox event,
 * and for its deliveries the event's id with `msg_` and the receiver's position, so dispatching an
 * event twice can never create a second delivery.
 */
export function newEventId(now: Date): string {
  return `evt_${now.getTime().toString(36).padStart(10, '0')}${randomBytes(8).toString('hex')}`;
}

export function deliveryId(eventId: string, position: number): string {
  return `msg_${eventId.slice('evt_'.length)}_${position}`;
}

/**
 * A delivery's id: an environment receiver's ends in its position, a subscription's has no suffix (subscriptions.ts).
 */
export const DELIVERY_ID = /^msg_[0-9a-z]{26}(?:_\d{1,3})?$/;

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the secret's
 * key; with several secrets (a rotation's grace period), one signature each, space-separated.
 */
export function signatureHeaders(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  const signatures = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}

/** A secret in the Standard Webhooks form: `whsec_` and base64 of 24 to 64 random bytes. */
export function isWebhookSecret(value: string): boolean {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value)) return false;
  const bytes = Buffer.from(value.slice('whsec_'.length), 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** What a delivery log entry is about: an event, or a subscription the deliverer disabled. */
export type DeliveryEvent = EventType | 'subscription.disabled';

export interface Delivery {
  id: string;
  event: DeliveryEvent;
  event_id: string;
  url: string;
  ticket: number;
  followup: number | null;
  status: DeliveryStatus;
  attempts: number;
  last_response_code: number | null;
  last_error: string | null;
  next_attempt: string | null;
  created: string;
  body: string;
  /** The subscription it goes to (subscriptions.ts); null or absent for an environment receiver. */
  subscription?: string | null;
  /**
   * Failed on every attempt and not yet on the operator's dead-letter queue: set with the last
   * attempt, removed once the deliverer's put there succeeded. While set, a new receive of its
   * message puts it there again (functions/webhooks/deliver.ts) rather than dropping it.
   */
  dead_letter_due?: boolean;
}

/** What an attempt came to: a 2xx is delivered; anything else is retried while the schedule lasts. */
export function afterAttempt(
  delivery: Pick<Delivery, 'attempts'>,
  outcome: { status?: number; error?: string },
  retryDelays: number[],
  now: Date,
): Pick<Delivery, 'status' | 'attempts' | 'last_response_code' | 'last_error' | 'next_attempt'> & {
  retryInSeconds?: number;
} {
  const attempts = delivery.attempts + 1;
  const base = { attempts, last_response_code: outcome.status ?? null, last_error: outcome.error ?? null };
  if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300)
    return { ...base, status: 'delivered', next_attempt: null };
  const delay = retryDelays[attempts - 1];
  if (delay === undefined) return { ...base, status: 'failed', next_attempt: null };
  return {
    ...base,
    status: 'pending',
    next_attempt: new Date(now.getTime() + delay * 1000).toISOString(),
    retryInSeconds: delay,
  };
}

/**
 * How overdue a pending delivery's next attempt may be before it counts as stuck. Normally an
 * attempt runs on time, or a few minutes late when a receive made no attempt (the queue's visibility
 * timeout); later than this, its message was lost (a redeliver whose queueing failed, say).
 */
export const STUCK_AFTER_MS = 15 * 60_000;

/** The time before which a pending delivery's next attempt makes it stuck (ISO, as `next_attempt`). */
export function stuckBefore(now: Date): string {
  return new Date(now.getTime() - STUCK_AFTER_MS).toISOString();
}

/** Whether staff may send the delivery again: it has ended, or it is stuck (see STUCK_AFTER_MS). */
export function mayRedeliver(d: Pick<Delivery, 'status' | 'next_attempt'>, now: Date): boolean {
  return d.status !== 'pending' || (d.next_attempt !== null && d.next_attempt < stuckBefore(now));
}

/** The longest path segment the delivery log shows whole; a longer one is cut to its first characters. */
const SHOWN_SEGMENT = 12;

/**
 * A receiver URL as the delivery log (staff) and the environment's receivers' list show it: scheme,
 * host and a shortened path. Chat receivers keep their secret in the path
 * (`https://hooks.slack.com/services/T0/B0/XXXX`) and others in the query (`?token=...`): only the
 * path's first segment shows, cut to SHOWN_SEGMENT characters, then `/…` when more follows, and a
 * query string as `?…`. The whole URL is its subscription's, which superusers see.
 */
export function shownUrl(value: string): string {
  try {
    const url = new URL(value);
    const [first = '', ...rest] = url.pathname.slice(1).split('/');
    const segment = first.length > SHOWN_SEGMENT ? `${first.slice(0, SHOWN_SEGMENT / 2)}…` : first;
    const more = rest.some(Boolean) ? '/…' : rest.length ? '/' : '';
    return `${url.protocol}//${url.host}/${segment}${more}${url.search ? '?…' : ''}`;
  } catch {
    return '(not a URL)';
  }
}

/** The delivery log's entry (no body: it holds customer data the log does not need to show). */
export function deliveryView(d: Delivery) {
  return {
    id: d.id,
    event: d.event,
    url: shownUrl(d.url),
    ticket: d.ticket,
    followup: d.followup,
    subscription: d.subscription ?? null,
    status: d.status,
    attempts: d.attempts,
    last_response_code: d.last_response_code,
    last_error: d.last_error,
    next_attempt: wireIsoDateTime(d.next_attempt),
    created: wireIsoDateTime(d.created)!,
  };
}
