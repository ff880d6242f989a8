import { BENCH_ADMIN_ENV } from './admin';

/**
 * The runtime the CPU benchmark's servers serve from (bench/cpu-server.ts, bench/cpu-floor-server.ts):
 * in memory, without the emulation of IAM's grants and DynamoDB's conflict rule, seeded with
 * BENCH_CPU_TICKETS tickets (200) and their stream applied; the stream not polled and no file sweeps
 * (nothing runs in the process but what is measured). `env` is set before any module reads it.
 */
export async function seededCpuRuntime(env: Record<string, string> = {}) {
  Object.assign(process.env, {
    ...BENCH_ADMIN_ENV,
    HELPDESK_STREAM_POLL_MS: '0',
    HELPDESK_FILE_SWEEP_SECONDS: '0',
    ...env,
  });
  const { startLocalRuntime } = await import('../infra/local/runtime');
  const { seedTickets } = await import('./seed');
  const { findUserByUsername } = await import('../shared/store/users');
  const runtime = await startLocalRuntime({ dataDir: 'memory', port: 0, awsEmulation: false });
  const admin = (await findUserByUsername('admin'))!;
  const tickets = await seedTickets(Number(process.env.BENCH_CPU_TICKETS ?? 200), admin.id);
  await runtime.drainTableStream();
  return { runtime, tickets };
}
