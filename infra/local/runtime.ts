/**
 * The local runtime: embedded engines, the environment the handlers read, bootstrap, and the
 * HTTP server. Used by `npm start` (main.ts), the tests and the benchmarks.
 */
import type { Server } from 'node:http';
import { startEngines } from './engines';

export interface RuntimeOptions {
  port?: number;
  host?: string;
  dataDir?: string;
}

export interface LocalRuntime {
  url: string;
  admin: { username: string; generatedPassword?: string };
  stop(): Promise<void>;
}

/** Environment defaults of the local runtime; anything already set wins. */
function setDefaults(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) process.env[name] ??= value;
}

export async function startLocalRuntime(options: RuntimeOptions = {}): Promise<LocalRuntime> {
  const engines = await startEngines(options.dataDir ?? '.helpdesk-data');
  // The SDK reads these when the clients are built, so they are set before the handlers load.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = engines.dynamoEndpoint;
  process.env.AWS_ENDPOINT_URL_S3 = engines.s3Endpoint;
  setDefaults({
    HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
    TABLE_NAME: 'helpdesk',
    BUCKET_NAME: 'helpdesk-attachments',
    HELPDESK_S3_FORCE_PATH_STYLE: 'true',
    AWS_REGION: 'us-east-1',
    // s3rver accepts only this key pair; DynamoDB Local (shared database) accepts any.
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    // The local runtime runs on this machine's Node 20; Lambda runs Node 22, where the SDK is quiet.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });

  let server: Server | undefined;
  try {
    const { bootstrap } = await import('./bootstrap');
    const admin = await bootstrap();
    const { createLocalServer } = await import('./server');
    server = createLocalServer();
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(options.port ?? 3000, host, () => resolve());
    });
    const { port } = server.address() as { port: number };
    const activeServer = server;
    return {
      url: `http://${host}:${port}`,
      admin,
      async stop() {
        await new Promise<void>((resolve) => {
          activeServer.close(() => resolve());
          activeServer.closeIdleConnections();
        });
        await engines.stop();
      },
    };
  } catch (error) {
    server?.close();
    await engines.stop();
    throw error;
  }
}
