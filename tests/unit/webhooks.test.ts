import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_DELAYS,
  DELIVERY_ID,
  afterAttempt,
  STUCK_AFTER_MS,
  mayRedeliver,
  deliveryId,
  isWebhookSecret,
  newEventId,
  newWebhookSecret,
  parseUrlList,
  parseWebhookSettings,
  refusedUrl,
  sendFailure,
  shownUrl,
  signatureHeaders,
  webhookPayload,
} from '../../shared/domain/webhooks';

describe('URL lists', () => {
  it('split at commas with any whitespace around them, empty entries dropped', () => {
    expect(parseUrlList('http://a/x , http://b/y')).toEqual(['http://a/x', 'http://b/y']);
    expect(parseUrlList('http://a/x,http://b/y')).toEqual(['http://a/x', 'http://b/y']);
    expect(parseUrlList(' http://a/x ,\n\thttp://b/y,, ')).toEqual(['http://a/x', 'http://b/y']);
    expect(parseUrlList('')).toEqual([]);
    expect(parseUrlList(undefined)).toEqual([]);
  });
});

describe('the payload setting', () => {
  it('reads HELPDESK_WEBHOOK_INCLUDE_PRIVATE, and refuses anything but true or false', () => {
    expect(parseWebhookSettings({ HELPDESK_WEBHOOK_INCLUDE_PRIVATE: 'true' }, false).includePrivate).toBe(true);
    expect(() => parseWebhookSettings({ HELPDESK_WEBHOOK_INCLUDE_PRIVATE: 'yes' }, false)).toThrow(/INCLUDE_PRIVATE/);
  });
});

describe('the delivery log', () => {
  it('shows a receiver URL without its query string, where tokens hide (issue 13)', () => {
    expect(shownUrl('https://hooks.example.com/in?token=s3cret&x=1')).toBe('https://hooks.example.com/in?…');
    expect(shownUrl('https://hooks.example.com:8443/a')).toBe('https://hooks.example.com:8443/a');
  });

  it("shows only the path's first segment, shortened, where chat receivers keep their secret (issue 25)", () => {
    expect(shownUrl('https://hooks.slack.com/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX')).toBe(
      'https://hooks.slack.com/services/…',
    );
    expect(shownUrl('https://discord.com/api/webhooks/123456/abcdef-token')).toBe('https://discord.com/api/…');
    expect(shownUrl('https://hooks.example.com/0f3c9a7b2d5e4f60a1b2c3d4e5f6a7b8')).toBe(
      'https://hooks.example.com/0f3c9a…',
    );
    expect(shownUrl('https://hooks.example.com/')).toBe('https://hooks.example.com/');
    expect(shownUrl('https://hooks.example.com/in/')).toBe('https://hooks.example.com/in/');
    expect(shownUrl('not a url')).toBe('(not a URL)');
  });
});

describe('why a send failed (issue 25)', () => {
  it('in words, never the raw error, with the network-mapping distinctions folded', () => {
    expect(sendFailure('ECONNREFUSED')).toBe('connection refused');
    expect(sendFailure('ETIMEDOUT')).toMatch(/^timed out/);
    expect(sendFailure('ENOTFOUND')).toMatch(/^DNS failed/);
    expect(sendFailure('EAI_AGAIN')).toMatch(/^DNS failed/);
    for (const code of [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'CERT_HAS_EXPIRED',
      'EPROTO',
      'ERR_SSL_WRONG_VERSION_NUMBER',
    ])
      expect(sendFailure(code)).toMatch(/^TLS failed/);
    expect(sendFailure('EREFUSEDADDRESS')).toMatch(/^not sent: .*may not have$/);
    for (const code of ['EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', undefined])
      expect(sendFailure(code)).toBe('connection failed');
  });

  it('public addresses in IPv6 forms stay allowed', () => {
    expect(refusedUrl('https://[::ffff:808:808]/', false)).toBeUndefined();
    expect(refusedUrl('https://[2606:4700::1111]/', false)).toBeUndefined();
    expect(refusedUrl('https://[64:ff9b::808:808]/', false)).toBeUndefined();
  });
});

describe('receiver URLs', () => {
  it.each([
    ['https://hooks.example.com/helpdesk', undefined],
    ['http://10.0.0.5:8080/in', 'a private or reserved address'],
    ['https://192.168.1.20/in', 'a private or reserved address'],
    ['https://172.31.255.1/in', 'a private or reserved address'],
    ['https://100.64.0.1/in', 'a private or reserved address'],
    ['https://[fd12:3456::1]/in', 'a private or reserved address'],
    ['https://[::ffff:10.1.2.3]/in', 'a private or reserved address'],
    ['https://224.0.0.1/in', 'a private or reserved address'],
    ['ftp://example.com/x', 'only http and https URLs are allowed'],
    ['not a url', 'not a valid URL'],
    ['https://user:pw@example.com/', 'credentials in the URL are not allowed'],
    ['http://169.254.169.254/latest/meta-data/', 'a link-local or cloud metadata address'],
    ['http://169.254.170.2/v2/credentials', 'a link-local or cloud metadata address'],
    ['http://[fd00:ec2::254]/', 'a cloud metadata address'],
    ['http://[fe80::1]/', 'a link-local address'],
    ['http://[::ffff:169.254.169.254]/', 'a link-local or cloud metadata address'],
    ['http://[::a9fe:a9fe]/', 'a link-local or cloud metadata address'],
    ['http://[64:ff9b::169.254.169.254]/', 'a link-local or cloud metadata address'],
    ['http://[fec0::1]/', 'a site-local address'],
    // Issue 25: IPv4-translated (RFC 2765) and RFC 8215's local-use NAT64 prefix.
    ['http://[::ffff:0:a9fe:a9fe]/', 'a link-local or cloud metadata address'],
    ['http://[::ffff:0:169.254.169.254]/', 'a link-local or cloud metadata address'],
    ['http://[::ffff:0:a00:1]/', 'a private or reserved address'],
    ['http://[64:ff9b:1::a9fe:a9fe]/', 'a private or reserved address'],
    ['http://[64:ff9b:1:ab::8.8.8.8]/', 'a private or reserved address'],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'a link-local or cloud metadata address'],
    ['http://metadata.google.internal/', 'a cloud metadata host'],
    ['http://metadata.google.internal./', 'a cloud metadata host'],
    ['http://2852039166/', 'a link-local or cloud metadata address'], // 169.254.169.254 as one number
    ['http://0xa9.0xfe.0xa9.0xfe/', 'a link-local or cloud metadata address'],
    ['http://100.100.100.200/', 'a cloud metadata address'],
    ['http://0.0.0.0/', 'an unspecified address'],
  ])('%s: %s', (url, reason) => {
    expect(refusedUrl(url, false)).toBe(reason);
    expect(refusedUrl(url, true)).toBe(reason);
  });

  it('http only in the local runtime: elsewhere receivers are https', () => {
    expect(refusedUrl('http://hooks.example.com/in', false)).toBe(
      'only https URLs are allowed outside the local runtime',
    );
    expect(refusedUrl('http://hooks.example.com/in', true)).toBeUndefined();
    expect(refusedUrl('https://hooks.example.com/in', false)).toBeUndefined();
  });

  it('loopback only where allowed (the local runtime)', () => {
    for (const url of [
      'http://127.0.0.1:9000/x',
      'http://localhost/x',
      'http://localhost./x',
      'http://[::1]/x',
      'http://[::ffff:7f00:1]/x',
      'http://app.localhost/x',
    ]) {
      expect(refusedUrl(url, false)).toMatch(/loopback/);
      expect(refusedUrl(url, true)).toBeUndefined();
    }
  });

  it('settings name every bad entry and check the timeout and schedule', () => {
    expect(() =>
      parseWebhookSettings(
        {
          HELPDESK_NEW_TICKET_WEBHOOK_URLS: 'https://ok.example/a, ftp://x/y',
          HELPDESK_FOLLOWUP_WEBHOOK_URLS: 'http://127.0.0.1/z',
          HELPDESK_WEBHOOK_TIMEOUT: '0',
        },
        false,
      ),
    ).toThrow(
      new RegExp(
        [
          String.raw`HELPDESK_NEW_TICKET_WEBHOOK_URLS: ftp:\/\/x\/y: only http`,
          String.raw`HELPDESK_FOLLOWUP_WEBHOOK_URLS: http:\/\/127.0.0.1\/z: a loopback`,
          'HELPDESK_WEBHOOK_TIMEOUT',
        ].join(String.raw`[\s\S]*`),
      ),
    );
    const settings = parseWebhookSettings({ HELPDESK_FOLLOWUP_WEBHOOK_URLS: 'https://a.example/f' }, false);
    expect(settings).toEqual({
      urls: { 'ticket.created': [], 'followup.created': ['https://a.example/f'] },
      includePrivate: false,
      timeoutMs: 3000,
      retryDelays: DEFAULT_RETRY_DELAYS,
    });
    expect(() => parseWebhookSettings({ HELPDESK_WEBHOOK_RETRY_DELAYS: '5,50000' }, false)).toThrow(/RETRY_DELAYS/);
  });
});

describe('signatures', () => {
  it('verify with the standardwebhooks package', () => {
    const secret = newWebhookSecret();
    expect(isWebhookSecret(secret)).toBe(true);
    const body = JSON.stringify({ ticket: { id: 1, title: 'é ✓' }, queue_slug: 'q' });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders(secret, 'msg_1', timestamp, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body + ' ', headers)).toThrow();
  });

  it('secrets are whsec_ and base64 of 24 to 64 bytes', () => {
    expect(isWebhookSecret('whsec_' + Buffer.alloc(24).toString('base64'))).toBe(true);
    expect(isWebhookSecret('whsec_' + Buffer.alloc(16).toString('base64'))).toBe(false);
    expect(isWebhookSecret('whsec_not base64!')).toBe(false);
    expect(isWebhookSecret(Buffer.alloc(32).toString('base64'))).toBe(false);
  });
});

describe('ids, payloads and the retry schedule', () => {
  it('delivery ids derive from their event: sortable by time, stable, recognisable', () => {
    const early = newEventId(new Date('2026-01-01T00:00:00Z'));
    const late = newEventId(new Date('2026-06-01T00:00:00Z'));
    expect(early < late).toBe(true);
    expect(deliveryId(early, 0)).toBe(deliveryId(early, 0));
    expect(deliveryId(early, 1)).not.toBe(deliveryId(early, 0));
    expect(DELIVERY_ID.test(deliveryId(early, 12))).toBe(true);
    expect(DELIVERY_ID.test('msg_../../x')).toBe(false);
  });

  it("payloads have upstream's keys, in upstream's order, then the actor", () => {
    const mail = { actor: null, source: 'mail' } as const;
    expect(Object.keys(webhookPayload('ticket.created', { id: 1 }, 'q', undefined, mail))).toEqual([
      'ticket',
      'queue_slug',
      'actor',
      'source',
    ]);
    const by = { actor: { id: 3, username: 'ann' }, source: 'api' } as const;
    expect(webhookPayload('followup.created', { id: 1 }, 'q', 7, by)).toEqual({
      ticket: { id: 1 },
      queue_slug: 'q',
      followup_id: 7,
      actor: { id: 3, username: 'ann' },
      source: 'api',
    });
  });

  it('retries on anything but 2xx, for more than a day, then fails', () => {
    expect(DEFAULT_RETRY_DELAYS.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3600);
    const now = new Date('2026-01-01T00:00:00Z');
    expect(afterAttempt({ attempts: 0 }, { status: 204 }, [5], now)).toEqual({
      status: 'delivered',
      attempts: 1,
      last_response_code: 204,
      last_error: null,
      next_attempt: null,
    });
    expect(afterAttempt({ attempts: 0 }, { status: 301 }, [5], now)).toMatchObject({
      status: 'pending',
      retryInSeconds: 5,
      next_attempt: '2026-01-01T00:00:05.000Z',
    });
    expect(afterAttempt({ attempts: 0 }, { error: 'timeout' }, [5], now)).toMatchObject({
      status: 'pending',
      last_error: 'timeout',
      last_response_code: null,
    });
    expect(afterAttempt({ attempts: 1 }, { status: 500 }, [5], now)).toEqual({
      status: 'failed',
      attempts: 2,
      last_response_code: 500,
      last_error: null,
      next_attempt: null,
    });
  });
});

describe('redelivery', () => {
  const now = new Date('2026-11-24T12:00:00.000Z');
  const at = (msAgo: number) => new Date(now.getTime() - msAgo).toISOString();

  it('is allowed once a delivery has ended', () => {
    expect(mayRedeliver({ status: 'delivered', next_attempt: null }, now)).toBe(true);
    expect(mayRedeliver({ status: 'failed', next_attempt: null }, now)).toBe(true);
  });

  it('is refused while attempts are under way, even a few minutes late', () => {
    expect(mayRedeliver({ status: 'pending', next_attempt: at(-60_000) }, now)).toBe(false);
    expect(mayRedeliver({ status: 'pending', next_attempt: at(STUCK_AFTER_MS - 1) }, now)).toBe(false);
  });

  it(
    'is allowed for a pending delivery whose next attempt is overdue by more than STUCK_AFTER_MS (its message ' +
      'was lost)',
    () => {
      expect(mayRedeliver({ status: 'pending', next_attempt: at(STUCK_AFTER_MS + 1) }, now)).toBe(true);
    },
  );
});
