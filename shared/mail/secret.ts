/**
 * The deployment's mail secret, which keys the threading tags (domain/mail-threading.ts): Reply-To
 * addresses and thread roots. Kept as the webhook signing secret is: in the environment locally
 * (`HELPDESK_MAIL_SECRET`; the local runtime makes one in the data directory on first start), in
 * Secrets Manager on AWS (`HELPDESK_MAIL_SECRET_ARN`, read once per process). Changing it makes
 * earlier Reply-To addresses and roots unverifiable (replies then thread by recorded Message-IDs only).
 */
import { config } from '../config';
import { deploymentSecret } from '../aws/secrets';

/** At least this many characters: 32 bytes of base64url is 43. */
export const MIN_MAIL_SECRET_LENGTH = 32;

/** The mail secret, read once per process (aws/secrets.ts). */
export const mailSecret = deploymentSecret(
  () => ({ arn: config.mail.secretArn, value: config.mail.secret }),
  (value) => {
    if (!value || value.length < MIN_MAIL_SECRET_LENGTH)
      throw new Error(
        `The mail secret is missing or shorter than ${MIN_MAIL_SECRET_LENGTH} characters (HELPDESK_MAIL_SECRET, ` +
          `or HELPDESK_MAIL_SECRET_ARN ` +
          `on AWS).`,
      );
    return value;
  },
);
