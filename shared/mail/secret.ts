/**
 * The deployment's mail secret, which keys the threading tags (domain/mail-threading.ts): Reply-To
 * addresses and thread roots. Kept as the webhook signing secret is: in the environment locally
 * (`HELPDESK_MAIL_SECRET`; the local runtime makes one in the data directory on first start), in
 * Secrets Manager on AWS (`HELPDESK_MAIL_SECRET_ARN`, read once per process). Changing it makes
 * earlier Reply-To addresses and roots unverifiable (replies then thread by recorded Message-IDs only).
 */
import { config } from '../config';
import { awsJsonCall } from '../store/aws-json';

/** At least this many characters: 32 bytes of base64url is 43. */
export const MIN_MAIL_SECRET_LENGTH = 32;

let secret: Promise<string> | undefined;

export function mailSecret(): Promise<string> {
  secret ??= readSecret().catch((error: unknown) => {
    secret = undefined; // try again on the next use
    throw error;
  });
  return secret;
}

async function readSecret(): Promise<string> {
  const arn = config.mail.secretArn;
  const value = arn ? (await awsJsonCall<{ SecretString?: string }>('secretsmanager', 'GetSecretValue', { SecretId: arn })).SecretString : config.mail.secret;
  if (!value || value.length < MIN_MAIL_SECRET_LENGTH) throw new Error(`The mail secret is missing or shorter than ${MIN_MAIL_SECRET_LENGTH} characters (HELPDESK_MAIL_SECRET, or HELPDESK_MAIL_SECRET_ARN on AWS).`);
  return value;
}
