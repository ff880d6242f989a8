/**
 * Where DynamoDB Local's CPU goes, by kind of thread, read from Linux's /proc: its JIT compilers
 * (C1, C2), the threads that serve requests (Jetty's `qtp…`), the one that runs each database's
 * SQLite statements (`SQLiteQueue…`: a database's calls are taken one at a time), the garbage
 * collector's, and the rest. The burst benchmark reports it per phase (bench/burst.ts): on a freshly
 * started JVM the compilers take a large share of the two cores the whole runtime shares.
 * Undefined where there is no /proc (macOS, Windows).
 */
import { readdirSync, readFileSync } from 'node:fs';

export type JvmThreadKind = 'JIT compilers' | 'request threads' | 'SQLite' | 'garbage collector' | 'other';

const KINDS: [RegExp, JvmThreadKind][] = [
  [/^C[12] CompilerThre/, 'JIT compilers'],
  [/^qtp/, 'request threads'],
  [/^SQLiteQueue/, 'SQLite'],
  [/^(GC Thread|G1 )/, 'garbage collector'],
];

/** Seconds of CPU (user + system) of each kind of thread so far. */
export type JvmCpu = Record<JvmThreadKind, number>;

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture Node runs on

/** The pid of the DynamoDB Local serving `endpoint` (its `-port` argument), if /proc can tell. */
export function dynamoDbLocalPid(endpoint: string): number | undefined {
  const port = new URL(endpoint).port;
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  for (const pid of entries) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const portAt = args.indexOf('-port');
      if (args.some((a) => a.endsWith('DynamoDBLocal.jar')) && portAt >= 0 && args[portAt + 1] === port)
        return Number(pid);
    } catch {
      // the process ended meanwhile
    }
  }
  return undefined;
}

/** The CPU each kind of `pid`'s threads has used so far (threads that ended are not counted). */
export function jvmCpu(pid: number): JvmCpu {
  const cpu: JvmCpu = { 'JIT compilers': 0, 'request threads': 0, SQLite: 0, 'garbage collector': 0, other: 0 };
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
      const fields = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const kind = KINDS.find(([pattern]) => pattern.test(name))?.[1] ?? 'other';
      cpu[kind] += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      // the thread ended meanwhile
    }
  }
  return cpu;
}

/** A probe of `endpoint`'s JVM: `since()` answers the CPU used since the probe was made, per kind. */
export function jvmCpuProbe(endpoint: string): { since(): JvmCpu } | undefined {
  const pid = dynamoDbLocalPid(endpoint);
  if (pid === undefined) return undefined;
  const start = jvmCpu(pid);
  return {
    since() {
      const now = jvmCpu(pid);
      for (const kind of Object.keys(now) as JvmThreadKind[])
        now[kind] = Math.round((now[kind] - start[kind]) * 10) / 10;
      return now;
    },
  };
}
