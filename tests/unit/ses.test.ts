/**
 * Amazon SES v2 SendEmail without the SDK (shared/aws/ses.ts) and the SES transport
 * (shared/mail/transports.ts): the request as SES expects it (endpoint, path, SigV4 for `ses`, the
 * raw message base64, the configuration set), the Message-ID SES assigns, retries of 5xx, and an
 * error SES answers thrown by its name. SES is stood in for by a loopback server.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startAwsStandIn } from './aws-stand-in';

const stand = await startAwsStandIn();
process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
process.env.AWS_ENDPOINT_URL_SESV2 = stand.endpoint;
const { sendRawEmail } = await import('../../shared/aws/ses');
const { sesTransport } = await import('../../shared/mail/transports');
const { serviceEndpoint } = await import('../../shared/aws/aws-request');

afterEach(() => {
  stand.seen.length = 0;
  stand.replies = [];
});
afterAll(() => stand.close());

describe('SES SendEmail', () => {
  it(
    'posts the raw message to the region, signed for ses, with the configuration set; the transport records ' +
      "SES's Message-ID",
    async () => {
      stand.replies = [{ status: 200, body: { MessageId: '0102abc-def' } }];
      const raw = Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nbody\r\n');
      const id = await sesTransport('helpdesk-prod').send(raw, {
        from: 'a@example.com',
        to: 'b@example.com',
        messageId: '<own@example.com>',
      });
      expect(id).toBe('<0102abc-def@eu-west-1.amazonses.com>');
      const [request] = stand.seen;
      expect(request!.path).toBe('/v2/email/outbound-emails');
      expect(request!.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/ses\/aws4_request, /,
      );
      expect(request!.headers['x-amz-target']).toBeUndefined();
      expect(request!.body).toEqual({
        FromEmailAddress: 'a@example.com',
        Destination: { ToAddresses: ['b@example.com'] },
        Content: { Raw: { Data: raw.toString('base64') } },
        ConfigurationSetName: 'helpdesk-prod',
      });
    },
  );

  it("goes to the region's SES v2 endpoint when AWS_ENDPOINT_URL_SESV2 is not set", () => {
    expect(serviceEndpoint('email', 'eu-west-1', undefined).href).toBe('https://email.eu-west-1.amazonaws.com/');
    expect(() =>
      serviceEndpoint('email', 'eu-west-1', undefined, { useFipsEndpoint: true, useDualstackEndpoint: false }),
    ).toThrow(/AWS_ENDPOINT_URL_SESV2/);
  });

  it('retries a 5xx, and throws what SES refuses by its name', async () => {
    stand.replies = [
      { status: 503, body: {} },
      { status: 200, body: { MessageId: 'm2' } },
    ];
    expect(
      await sendRawEmail({
        raw: Buffer.from('x'),
        from: 'a@example.com',
        to: 'b@example.com',
        configurationSet: undefined,
      }),
    ).toBe('m2');
    expect(stand.seen).toHaveLength(2);
    stand.seen.length = 0;
    stand.replies = [
      {
        status: 400,
        body: { message: 'Email address is not verified.' },
        headers: { 'x-amzn-errortype': 'MessageRejected:http://internal.amazon.com/' },
      },
    ];
    await expect(
      sendRawEmail({ raw: Buffer.from('x'), from: 'a@example.com', to: 'b@example.com', configurationSet: undefined }),
    ).rejects.toMatchObject({
      name: 'MessageRejected',
      message: 'ses SendEmail failed: MessageRejected: Email address is not verified.',
    });
    expect(stand.seen).toHaveLength(1);
  });
});
