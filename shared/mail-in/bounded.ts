/**
 * Parsing and cleaning a received message in a worker thread with a CPU-time budget (issue 32): past
 * the budget the worker is terminated and the message refused as a problem (kept raw, counted by
 * MailInProblems, whose alarm fires on AWS), so the process goes on serving and the IMAP poller
 * goes on to the next message. The text functions are linear by code (lint's regexp rules); the
 * budget covers what lint cannot see, the libraries' own expressions among them.
 *
 * The worker is the bundled `mail-text-worker.mjs` beside a Lambda's bundle (infra/bundling.ts
 * builds it), or text-worker.ts from source through tsx (npm start, tests). One worker is kept
 * warm between messages; a message waits for none: a busy worker means a new one.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { config } from '../config';
import { MailRefused, type ParsedMail } from './parse';
import type { TEXT_FUNCTIONS, TextAnswer, TextFunction } from './text-worker';

/** The worker's file in a Lambda bundle, written there by infra/bundling.ts. */
export const BUNDLED_WORKER = 'mail-text-worker.mjs';

/** A run over its budget: the message is set aside. */
export class OverBudget extends MailRefused {}

function startWorker(): Worker {
  const bundled = new URL(`./${BUNDLED_WORKER}`, import.meta.url);
  if (existsSync(fileURLToPath(bundled))) return new Worker(bundled);
  // From source: the worker loads TypeScript through tsx, whether or not this process was started with it.
  const execArgv = process.execArgv.some((arg) => arg.includes('tsx'))
    ? process.execArgv
    : [...process.execArgv, '--import', 'tsx'];
  return new Worker(new URL('./text-worker.ts', import.meta.url), { execArgv });
}

/** How often a run's CPU time is read (ms). */
const CPU_CHECK_MS = 100;
/** A run is stopped after this many budgets of wall time whatever its CPU time (it waits rather than computes). */
const WALL_BUDGETS = 4;

/** The worker thread's CPU time so far (ms), read from outside while it runs; undefined where Node cannot. */
async function cpuMs(worker: Worker): Promise<number | undefined> {
  const reader = (worker as Worker & { cpuUsage?: () => Promise<NodeJS.CpuUsage> }).cpuUsage;
  if (typeof reader !== 'function') return undefined;
  const usage = await reader.call(worker).catch(() => undefined);
  return usage && (usage.user + usage.system) / 1000;
}

let idle: Worker | undefined;

/** Runs one text function in a worker; over `budgetMs` the worker is stopped and OverBudget thrown. */
export async function runBounded<F extends TextFunction>(
  fn: F,
  args: Parameters<(typeof TEXT_FUNCTIONS)[F]>,
  budgetMs: number = config.mailIn.parseBudgetMs,
): Promise<Awaited<ReturnType<(typeof TEXT_FUNCTIONS)[F]>>> {
  const fresh = idle === undefined;
  const worker = idle ?? startWorker();
  idle = undefined;
  worker.ref();
  // A thread's CPU time can be read once it runs.
  if (fresh) await once(worker, 'online').catch(() => undefined);
  const start = await cpuMs(worker);
  let check: NodeJS.Timeout | undefined;
  const answer = await new Promise<TextAnswer | 'over'>((resolve, reject) => {
    const started = Date.now();
    // CPU time where Node reads a worker's (22.19 on): a loaded machine does not make a message over budget. A run
    // waiting rather than computing is still stopped after WALL_BUDGETS budgets; without the reading, one budget.
    const wallMs = start === undefined ? budgetMs : budgetMs * WALL_BUDGETS;
    check = setInterval(
      () => {
        if (Date.now() - started > wallMs) resolve('over');
        else if (start !== undefined)
          cpuMs(worker).then(
            (now) => now !== undefined && now - start > budgetMs && resolve('over'),
            () => undefined,
          );
      },
      Math.max(1, Math.min(CPU_CHECK_MS, budgetMs / 4)),
    );
    const done = (value: TextAnswer | Error) => {
      worker.off('message', done);
      worker.off('error', done);
      if (value instanceof Error) reject(value);
      else resolve(value);
    };
    worker.on('message', done);
    worker.on('error', done);
    worker.postMessage({ fn, args });
  })
    .catch((error: Error) => ({ error: error.message }))
    .finally(() => clearInterval(check));
  if (answer === 'over' || 'error' in answer) {
    // Stopped mid-run, or broken: never reused.
    await worker.terminate();
  } else if (idle) {
    await worker.terminate();
  } else {
    worker.unref();
    idle = worker;
  }
  if (answer === 'over')
    throw new OverBudget(`set aside: parsing and cleaning the message took more than its budget of ${budgetMs} ms`);
  if ('refused' in answer) throw new MailRefused(answer.refused);
  if ('error' in answer) throw new Error(answer.error);
  return answer.ok as Awaited<ReturnType<(typeof TEXT_FUNCTIONS)[F]>>;
}

/** parseMail in the worker, its parts' bytes Buffers again (a worker's answer carries them as Uint8Arrays). */
export async function parseMailBounded(raw: Buffer, budgetMs?: number): Promise<ParsedMail> {
  const mail = await runBounded('parseMail', [raw], budgetMs);
  return {
    ...mail,
    parts: mail.parts.map((part) => ({
      ...part,
      data: Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength),
    })),
  };
}
