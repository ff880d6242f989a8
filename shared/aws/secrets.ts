/**
 * A deployment secret (the webhook signing secret, the mail threading secret): in the environment
 * locally, in Secrets Manager on AWS (by its ARN, with the other clients' timeouts: aws-json.ts).
 * Read once per process; a failed read is tried again at the next use, so a hung or failing read
 * fails the work that needed it (which is retried), never the process.
 */
import { awsJsonCall } from './aws-json';

export interface SecretSource {
  /** Secrets Manager's ARN of the secret (on AWS). */
  arn: string | undefined;
  /** The value itself (the environment, locally). */
  value: string | undefined;
}

/**
 * A reader of the secret `source()` names, whose value `accept` checks (and may normalise), throwing when it is
 * unusable.
 */
export function deploymentSecret(
  source: () => SecretSource,
  accept: (value: string | undefined) => string,
): () => Promise<string> {
  let secret: Promise<string> | undefined;
  const read = async () => {
    const { arn, value } = source();
    return accept(
      arn
        ? (await awsJsonCall<{ SecretString?: string }>('secretsmanager', 'GetSecretValue', { SecretId: arn }))
            .SecretString
        : value,
    );
  };
  return () =>
    (secret ??= read().catch((error: unknown) => {
      secret = undefined; // try again on the next use
      throw error;
    }));
}
