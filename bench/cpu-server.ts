/**
 * The server side of the CPU benchmark (bench/cpu.ts), in a process of its own so that its CPU time
 * is the API's alone: the local runtime in memory, as `npm start` serves it, logging as on AWS (a
 * Powertools JSON record and EMF metrics per request, to stdout), with nothing else running in it
 * (the table's stream is read only when asked: on AWS it is another function's work; no file sweeper)
 * and without the runtime's emulation of IAM's grants and DynamoDB's conflict rule (on AWS, IAM's
 * and DynamoDB's work, not the function's).
 *
 * Driven over IPC: `measure` starts a window (CPU time, and with `profile` a V8 CPU profile),
 * `report` ends it and answers the CPU used and, from the profile, the self time of each layer.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { profileLayers } from './cpu-layers';
import { seededCpuRuntime } from './cpu-runtime';

const { runtime, tickets } = await seededCpuRuntime({
  HELPDESK_ACTIVATE_API_ENDPOINT: 'True',
  HELPDESK_LOG_FORMAT: 'json',
  POWERTOOLS_LOG_LEVEL: 'INFO',
});

export type CpuServerMessage =
  { type: 'measure'; profile: boolean } | { type: 'report'; name: string } | { type: 'stop' };
export type CpuServerReply =
  | { type: 'ready'; url: string; tickets: number[] }
  | { type: 'measuring' }
  | { type: 'report'; cpuMicros: number; layers?: Record<string, number> };

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
let started: NodeJS.CpuUsage | undefined;
let profiling = false;

async function handle(message: CpuServerMessage): Promise<CpuServerReply> {
  if (message.type === 'measure') {
    profiling = message.profile;
    if (profiling) await session.post('Profiler.start');
    started = process.cpuUsage();
    return { type: 'measuring' };
  }
  if (message.type === 'report') {
    const used = process.cpuUsage(started);
    if (!profiling) return { type: 'report', cpuMicros: used.user + used.system };
    const { profile } = await session.post('Profiler.stop');
    // To look closer: BENCH_CPU_PROFILES=<folder> keeps each profile, for Chrome DevTools or speedscope.
    if (process.env.BENCH_CPU_PROFILES)
      writeFileSync(
        join(process.env.BENCH_CPU_PROFILES, `${message.name.replace(/\W+/g, '-')}.cpuprofile`),
        JSON.stringify(profile),
      );
    return { type: 'report', cpuMicros: used.user + used.system, layers: profileLayers(profile) };
  }
  await runtime.stop();
  process.exit(0);
}

process.on('message', (message: CpuServerMessage) => void handle(message).then((reply) => process.send!(reply)));
process.send!({ type: 'ready', url: runtime.url, tickets } satisfies CpuServerReply);
