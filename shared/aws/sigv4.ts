/**
 * SigV4 signing for every AWS call the functions make (DynamoDB in dynamodb.ts, S3 in files.ts, SQS
 * and Secrets Manager in aws-json.ts: no SDK client in a bundle), by the SDK's own signer,
 * @smithy/signature-v4. One signer per service and region, with the function's credentials (Lambda
 * hands them in its environment; the local runtime sets them; the CLI may bring its own).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { config } from '../config';

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

/** SHA-256 and its HMAC from node:crypto, in the shape the signer takes (@smithy/types' Checksum). */
class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

const signers = new Map<string, SignatureV4>();
let credentialSource: Credentials | undefined;

/**
 * Signs with `credentials` (a provider, asked at each signing) instead of the environment's: the CLI
 * against a deployed table, whose credentials come from the SDK's default chain (profiles, SSO ...,
 * cli/target.ts). A function's are always in its environment.
 */
export function useCredentials(credentials: Credentials): void {
  credentialSource = credentials;
  signers.clear();
}

/**
 * The signer of `service` in `region`. No x-amz-content-sha256 header is added (S3's callers set it
 * themselves; other services do not ask for it), and S3's paths are signed as given (files.ts passes
 * them in their canonical form).
 */
export function awsSigner(service: string, region: string): SignatureV4 {
  const key = `${service} ${region}`;
  let signer = signers.get(key);
  if (!signer) {
    const { accessKeyId, secretAccessKey, sessionToken } = config.aws;
    signer = new SignatureV4({
      service,
      region,
      credentials: credentialSource ?? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
      sha256: Sha256,
      applyChecksum: false,
      uriEscapePath: service !== 's3',
    });
    signers.set(key, signer);
  }
  return signer;
}
