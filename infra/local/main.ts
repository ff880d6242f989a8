/** `npm start`: the whole API on this machine, on embedded engines. */
import { startLocalRuntime } from './runtime';
import { DEFAULT_IMAP_POLL_SECONDS } from './imap';

/** Where `npm start` listens for mail unless HELPDESK_SMTP_PORT says otherwise. */
const DEFAULT_SMTP_PORT = 2525;

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.HELPDESK_DATA_DIR ?? '.helpdesk-data';
// `line`: one line per request (method, path, status, ms, request id), and the functions' records
// only from WARN up unless POWERTOOLS_LOG_LEVEL says otherwise. `json`: the functions' full records.
const logFormat = process.env.HELPDESK_LOG_FORMAT ?? 'line';
if (logFormat !== 'line' && logFormat !== 'json') {
  console.error(`HELPDESK_LOG_FORMAT must be line or json, not "${logFormat}"`);
  process.exit(1);
}
if (logFormat === 'line') process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
// `external`: the engines at AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_S3, started by another
// process (the test run's shared pair), rather than engines of this server's own.
const enginesSetting = process.env.HELPDESK_ENGINES ?? 'own';
const [dynamoEndpoint, s3Endpoint] = [process.env.AWS_ENDPOINT_URL_DYNAMODB, process.env.AWS_ENDPOINT_URL_S3];
if (enginesSetting !== 'own' && !(enginesSetting === 'external' && dynamoEndpoint && s3Endpoint)) {
  console.error(
    'HELPDESK_ENGINES must be own, or external with AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_S3 set, not ' +
      `"${enginesSetting}"`,
  );
  process.exit(1);
}
const engines =
  enginesSetting === 'external' ? { dynamoEndpoint: dynamoEndpoint!, s3Endpoint: s3Endpoint! } : undefined;

// Mail in (docs/local.md): SMTP on loopback. 2525 by default, and a free port when that one is taken
// (another helpdesk, a mail catcher); a port set explicitly must be free; 0 picks a free one.
const smtpSetting = process.env.HELPDESK_SMTP_PORT ?? '';
if (smtpSetting !== '' && !(/^\d+$/.test(smtpSetting) && Number(smtpSetting) < 65536)) {
  console.error(`HELPDESK_SMTP_PORT must be a port number (0 picks a free one), not "${smtpSetting}"`);
  process.exit(1);
}
const smtpPort = smtpSetting === '' ? DEFAULT_SMTP_PORT : Number(smtpSetting);

const runtime = await startLocalRuntime({
  port,
  dataDir,
  accessLog: logFormat === 'line',
  engines,
  smtpPort,
  smtpFallback: smtpSetting === '',
}).catch((error: Error) => {
  console.error(`Could not start the local API: ${error.message}`);
  process.exit(1);
});

console.log(`Helpdesk API listening on ${runtime.url}/api/`);
if (runtime.smtpPortTaken !== undefined)
  console.log(
    `SMTP port ${runtime.smtpPortTaken} is taken: using ${runtime.smtpPort} (set HELPDESK_SMTP_PORT to choose)`,
  );
const mailDomain = process.env.HELPDESK_MAIL_DOMAIN || 'localhost';
console.log(`Mail in: SMTP listening on 127.0.0.1:${runtime.smtpPort} (a queue answers at <slug>@${mailDomain})`);
const pollSeconds = process.env.HELPDESK_IMAP_POLL_SECONDS ?? DEFAULT_IMAP_POLL_SECONDS;
if (runtime.imapMailbox)
  console.log(`Mail in: polling the mailbox ${runtime.imapMailbox} (HELPDESK_IMAP_URL) every ${pollSeconds} s`);
console.log(`Data: ${dataDir === 'memory' ? 'in memory (lost on exit)' : dataDir}`);
if (process.env.HELPDESK_ACTIVATE_API_ENDPOINT !== 'True') {
  console.log('HELPDESK_ACTIVATE_API_ENDPOINT is not True: every API route answers 404.');
}
if (process.env.HELPDESK_CORS_ORIGINS)
  console.log(`CORS: origins ${process.env.HELPDESK_CORS_ORIGINS} may call the API from a browser`);
if (runtime.admin.generatedPassword) {
  console.log(`Created staff superuser "${runtime.admin.username}" with password: ${runtime.admin.generatedPassword}`);
  console.log('(shown once; set HELPDESK_ADMIN_PASSWORD to choose it)');
} else {
  console.log(`Staff superuser: ${runtime.admin.username}`);
}

// The signing secret is never printed (logs and terminals are copied around): it is in a file only
// its owner may read, or, with the data in memory, known only to whoever set HELPDESK_WEBHOOK_SECRET.
if (runtime.generatedWebhookSecret) {
  console.log(
    dataDir === 'memory'
      ? 'Webhook signing secret: generated for this run only; set HELPDESK_WEBHOOK_SECRET to verify signatures'
      : `Webhook signing secret: generated, in ${dataDir}/webhook-secret (readable by you only); ` +
          'set HELPDESK_WEBHOOK_SECRET to choose it',
  );
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping...');
    runtime.stop().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(error.message);
        process.exit(1);
      },
    );
  });
}
