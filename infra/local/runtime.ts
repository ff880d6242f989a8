/**
 * The local runtime: embedded engines, the environment the handlers read, bootstrap, and the
 * HTTP server. Used by `npm start` (main.ts), the tests and the benchmarks.
 */
import type { Server } from 'node:http';
import { LOCAL_FUNCTION_CONCURRENCY } from './invocations';
import { startEngines, type Engines } from './engines';
import type { EngineEndpoints } from './endpoints';
import { checkAuthenticationSettings, config } from '../../shared/config';
import { usePasswordCostOf } from '../../shared/domain/password';
import { DataDirBusy, claimDataDir, useLocalDefaults, useLocalEngines } from './endpoints';
import type { LocalWebhooks } from './webhooks';
import type { LocalMail } from './mail';
import type { LocalTableStream } from './table-stream';
import { fileSweepInterval, type LocalFileSweeper } from './file-sweeper';
import type { LocalSmtp } from './smtp';
import type { LocalLambda } from './lambda';
import type { Repeating } from './repeat';
import { imapPollInterval } from './imap';
import { join } from 'node:path';
import { escalationHour } from './escalation';

export interface RuntimeOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  /** One line per request on stdout (`npm start`'s default: HELPDESK_LOG_FORMAT=line). */
  accessLog?: boolean;
  /**
   * Engines another process started and keeps running (HELPDESK_ENGINES=external: a test run starts
   * one pair for all its runtimes, each on a table and bucket of its own): used, never stopped.
   * Without them the runtime starts its own.
   */
  engines?: EngineEndpoints;
  /**
   * What AWS does that DynamoDB Local does not: IAM's table grants per function (table-access.ts)
   * and the transaction conflict rule (transaction-conflicts.ts), applied by the runtime's client.
   * On by default; the CPU benchmark turns it off, since on AWS that work is DynamoDB's and IAM's,
   * not the function's.
   */
  awsEmulation?: boolean;
  /**
   * SMTP for mail in (smtp.ts) on this port of the runtime's host (0: a free one); undefined: no
   * SMTP. When `smtpFallback` is set and the port is taken, a free one is used instead.
   */
  smtpPort?: number;
  smtpFallback?: boolean;
}

export interface LocalRuntime {
  url: string;
  admin: { username: string; generatedPassword?: string };
  /** The SMTP port mail in listens on, when it does. */
  smtpPort?: number;
  /** The IMAP mailbox polled for mail (HELPDESK_IMAP_URL, without its password), when one is. */
  imapMailbox?: string;
  /** Set when the SMTP port asked for was taken and a free one is used instead. */
  smtpPortTaken?: number;
  /** The webhook signing secret, when this start generated it. */
  generatedWebhookSecret?: string;
  /** The folder sent mail is captured in (`<data dir>/mailbox`), when mail is captured. */
  mailboxDir?: string;
  /** Applies the table's stream up to now (tests that set HELPDESK_STREAM_POLL_MS=0 step it by hand). */
  drainTableStream(): Promise<void>;
  /** Pauses the stream's poller (true) or resumes it (false); `drainTableStream` still applies (the benchmark). */
  pauseTableStream(paused: boolean): void;
  stop(): Promise<void>;
}

export async function startLocalRuntime(options: RuntimeOptions = {}): Promise<LocalRuntime> {
  const dataDir = options.dataDir ?? '.helpdesk-data';
  // Settings errors first, before the engines take seconds to start.
  useLocalDefaults();
  usePasswordCostOf(process.env);
  // The search engine's files beside the table's (in memory with it).
  process.env.HELPDESK_SEARCH_DIR ??= dataDir === 'memory' ? 'memory' : join(dataDir, 'search');
  void config.webhooks.settings; // refuses to start on a bad receiver URL
  const sweepEvery = fileSweepInterval();
  const imapEvery = imapPollInterval();
  const escalateAt = escalationHour();
  void config.escalation.timeZone; // refuses to start on a bad HELPDESK_ESCALATION_TIME_ZONE
  void config.mailIn.imap; // refuses to start on a bad HELPDESK_IMAP_URL
  checkAuthenticationSettings(); // refuses to start on an unknown class or a bad HELPDESK_OIDC_* setting
  // One process per data directory (DynamoDB Local's rule): wait for a CLI command to finish, refuse
  // a second server. `<dataDir>/endpoints.json` then tells the CLI where this server's engines are.
  const owned =
    dataDir === 'memory'
      ? undefined
      : await claimDataDir(dataDir, 'server', (owner) => {
          if (owner.owner === 'server') {
            const at = owner.url ? ` (${owner.url})` : '';
            throw new DataDirBusy(`${dataDir} is already used by the local server of process ${owner.pid}${at}.`);
          }
          return undefined;
        });
  const claim = owned && 'claim' in owned ? owned.claim : undefined;
  // The search engine starts beside DynamoDB Local (seconds of WebAssembly in its worker, against the JVM's seconds),
  // so that it is ready for the first change: started after them, it held the stream's first batch (the bootstrap's
  // records) for 1.8 s, and a fresh start's first create was counted 1.4-1.8 s after its 201.
  const search = await import('../../shared/search/engine');
  search.searchEngine()?.catch(() => undefined);
  let engines: Engines;
  try {
    engines = options.engines ? { ...options.engines, stop: () => Promise.resolve() } : await startEngines(dataDir);
  } catch (error) {
    await search.closeSearchEngine();
    claim?.release();
    throw error;
  }
  // The SDK reads these when the clients are built, so they are set before the handlers load.
  useLocalEngines(engines);

  let server: Server | undefined;
  let webhooks: LocalWebhooks | undefined;
  let mail: LocalMail | undefined;
  let sweeper: LocalFileSweeper | undefined;
  let stream: LocalTableStream | undefined;
  let smtp: LocalSmtp | undefined;
  let imap: Repeating | undefined;
  let escalation: Repeating | undefined;
  let lambda: LocalLambda | undefined;
  try {
    const { emulateTransactionConflicts, emulationEnabled } = await import('./transaction-conflicts');
    const { dynamo } = await import('../../shared/aws/clients');
    const awsEmulation = options.awsEmulation ?? true;
    if (awsEmulation && emulationEnabled()) emulateTransactionConflicts(dynamo);
    if (awsEmulation) (await import('./table-access')).enforceTableGrants(dynamo);
    const { bootstrap } = await import('./bootstrap');
    const admin = await bootstrap();
    const { startLocalWebhooks } = await import('./webhooks');
    webhooks = await startLocalWebhooks(dataDir);
    mail = (await import('./mail')).startLocalMail(dataDir);
    const { startLocalTableStream } = await import('./table-stream');
    const { STREAM_POSITIONS_FILE } = await import('./stream-positions');
    // The stream's poller yields to a burst: it holds off while requests wait for a function's slot.
    const { createLocalServer, functionConcurrency } = await import('./server');
    const concurrency = functionConcurrency(LOCAL_FUNCTION_CONCURRENCY);
    stream = await startLocalTableStream({
      extraConsumers: [webhooks.consumer, ...(mail.consumer ? [mail.consumer] : [])],
      requestsWaiting: () => concurrency.waiting(),
      positionsFile: dataDir === 'memory' ? undefined : join(dataDir, STREAM_POSITIONS_FILE),
    });
    const { startLocalFileSweeper } = await import('./file-sweeper');
    sweeper = await startLocalFileSweeper(sweepEvery);
    // Before the routes serve: the mail problems' release invokes the mail release function through it.
    lambda = await (await import('./lambda')).startLocalLambda();
    server = createLocalServer({
      accessLog: options.accessLog ?? false,
      grants: options.awsEmulation ?? true,
      concurrency,
    });
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(options.port ?? 3000, host, () => resolve());
    });
    const { port } = server.address() as { port: number };
    let smtpPortTaken: number | undefined;
    if (options.smtpPort !== undefined) {
      const { startLocalSmtp } = await import('./smtp');
      smtp = await startLocalSmtp(options.smtpPort, undefined, host).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EADDRINUSE' || !options.smtpFallback) throw error;
        smtpPortTaken = options.smtpPort;
        return startLocalSmtp(0, undefined, host);
      });
    }
    imap = await (await import('./imap')).startLocalImapPoller(imapEvery);
    escalation = await (await import('./escalation')).startLocalEscalation(escalateAt);
    const activeEscalation = escalation;
    const activeSmtp = smtp;
    const activeImap = imap;
    const activeServer = server;
    const url = `http://${host}:${port}`;
    claim?.publish({
      dynamoEndpoint: engines.dynamoEndpoint,
      s3Endpoint: engines.s3Endpoint,
      url,
      tableName: config.tableName,
    });
    const activeWebhooks = webhooks;
    const activeSweeper = sweeper;
    const activeStream = stream;
    const activeMail = mail;
    const activeLambda = lambda;
    return {
      url,
      admin,
      generatedWebhookSecret: webhooks.generatedSecret,
      smtpPort: activeSmtp?.port,
      smtpPortTaken,
      imapMailbox: config.mailIn.imap && process.env.HELPDESK_IMAP_URL,
      mailboxDir: mail.mailboxDir,
      drainTableStream: () => activeStream.drain(),
      pauseTableStream: (paused) => activeStream.pausePolling(paused),
      async stop() {
        claim?.publish(undefined); // stopping: a CLI waits rather than use engines on their way out
        await new Promise<void>((resolve) => {
          activeServer.close(() => resolve());
          activeServer.closeIdleConnections();
        });
        await activeSmtp?.stop();
        await activeLambda.stop();
        await activeImap?.stop();
        await activeEscalation.stop();
        await activeWebhooks.stop();
        await activeSweeper.stop();
        await activeStream.stop();
        await activeMail.stop();
        await search.closeSearchEngine();
        await engines.stop();
        claim?.release();
      },
    };
  } catch (error) {
    server?.close();
    await smtp?.stop();
    await lambda?.stop();
    await imap?.stop();
    await escalation?.stop();
    await webhooks?.stop();
    await sweeper?.stop();
    await stream?.stop();
    await mail?.stop();
    await search.closeSearchEngine();
    await engines.stop();
    claim?.release();
    throw error;
  }
}
