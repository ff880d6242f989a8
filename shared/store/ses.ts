/**
 * Amazon SES v2 `SendEmail` with raw content (the one SES call the sender makes), a REST JSON POST
 * signed by the project's SigV4 signer (sigv4.ts), as aws-json.ts does for SQS and Secrets
 * Manager: the SDK's SESv2 client would add its own serialisers and middleware to the bundle.
 * Retries: 5xx, 429 and dropped connections, up to three attempts with jittered backoff; anything
 * else is thrown with the service's error name (MessageRejected, AccountSuspendedException ...).
 */
import { config } from '../config';
import { AwsServiceError, backoffMs, serviceFault, signedJsonPost } from './aws-json';

const ATTEMPTS = 3;
const attemptMs = config.dependencyTimeoutMs ?? 5000;

export interface RawEmail {
  raw: Buffer;
  from: string;
  to: string;
  configurationSet: string | undefined;
}

/** Sends one raw message; SES's MessageId (the mail's Message-ID is `<MessageId@<region>.amazonses.com>`). */
export async function sendRawEmail(email: RawEmail): Promise<string> {
  const region = config.aws.region;
  const url = new URL(`${config.aws.sesEndpoint ?? `https://email.${region}.amazonaws.com`}/v2/email/outbound-emails`);
  const body = JSON.stringify({
    FromEmailAddress: email.from,
    Destination: { ToAddresses: [email.to] },
    Content: { Raw: { Data: email.raw.toString('base64') } },
    ...(email.configurationSet ? { ConfigurationSetName: email.configurationSet } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      const { host: _host, ...headers } = await signedJsonPost('ses', region, url, 'application/json', undefined, body);
      response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(attemptMs) });
    } catch (error) {
      if (attempt < ATTEMPTS) {
        await new Promise((done) => setTimeout(done, backoffMs(attempt)));
        continue;
      }
      throw Object.assign(new Error(`ses SendEmail failed: ${(error as Error).message}`), { name: (error as Error).name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError', cause: error });
    }
    const text = await response.text();
    if (response.ok) return String((JSON.parse(text) as { MessageId?: string }).MessageId);
    if ((response.status >= 500 || response.status === 429) && attempt < ATTEMPTS) {
      await new Promise((done) => setTimeout(done, backoffMs(attempt)));
      continue;
    }
    // REST JSON errors name themselves in a header or the body's `__type`/`code`.
    const fault = serviceFault(response.status, text);
    const name = response.headers.get('x-amzn-errortype')?.split(':')[0] || fault.name;
    throw new AwsServiceError(name, `ses SendEmail failed: ${name}${fault.message ? `: ${fault.message}` : ''}`, { httpStatusCode: response.status });
  }
}
