/**
 * Amazon SES v2 SendEmail without the SDK (shared/store/ses.ts) and the SES transport
 * (shared/mail/transports.ts): the request as SES expects it (endpoint, path, SigV4 for `ses`, the
 * raw message base64, the configuration set), the Message-ID SES assigns, retries of 5xx, and an
 * error SES answers thrown by its name.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

process.env.AWS_REGION = 'eu-west-1';
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'secret';
const { sendRawEmail } = await import('../../shared/store/ses');
const { sesTransport } = await import('../../shared/mail/transports');

const seen: Request[] = [];
function answer(...replies: Response[]) {
  vi.stubGlobal('fetch', (input: URL, init: RequestInit) => {
    seen.push(new Request(input, init));
    return Promise.resolve(replies.shift()!);
  });
}
afterEach(() => {
  seen.length = 0;
  vi.unstubAllGlobals();
});

describe('SES SendEmail', () => {
  it('posts the raw message to the region, signed for ses, with the configuration set; the transport records SES\'s Message-ID', async () => {
    answer(new Response('{"MessageId":"0102abc-def"}'));
    const raw = Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nbody\r\n');
    const id = await sesTransport('helpdesk-prod').send(raw, { from: 'a@example.com', to: 'b@example.com', messageId: '<own@example.com>' });
    expect(id).toBe('<0102abc-def@eu-west-1.amazonses.com>');
    const [request] = seen;
    expect(request!.url).toBe('https://email.eu-west-1.amazonaws.com/v2/email/outbound-emails');
    expect(request!.headers.get('authorization')).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/ses\/aws4_request, /);
    expect(request!.headers.get('x-amz-target')).toBeNull();
    const body = await request!.json();
    expect(body).toEqual({ FromEmailAddress: 'a@example.com', Destination: { ToAddresses: ['b@example.com'] }, Content: { Raw: { Data: raw.toString('base64') } }, ConfigurationSetName: 'helpdesk-prod' });
  });

  it('retries a 5xx, and throws what SES refuses by its name', async () => {
    answer(new Response('{}', { status: 503 }), new Response('{"MessageId":"m2"}'));
    expect(await sendRawEmail({ raw: Buffer.from('x'), from: 'a@example.com', to: 'b@example.com', configurationSet: undefined })).toBe('m2');
    expect(seen).toHaveLength(2);
    seen.length = 0;
    answer(new Response('{"message":"Email address is not verified."}', { status: 400, headers: { 'x-amzn-errortype': 'MessageRejected:http://internal.amazon.com/' } }));
    await expect(sendRawEmail({ raw: Buffer.from('x'), from: 'a@example.com', to: 'b@example.com', configurationSet: undefined })).rejects.toMatchObject({
      name: 'MessageRejected',
      message: 'ses SendEmail failed: MessageRejected: Email address is not verified.',
    });
    expect(seen).toHaveLength(1);
  });
});
