/**
 * The file sweeper, on a schedule (infra/file-sweeper.ts): finishes the cleanup records that are due
 * (shared/store/file-cleanups.ts), so no attachment object outlives its record. A run that cannot
 * reach DynamoDB or S3 fails (and raises the sweeper's alarm); the next run takes over.
 */
import { logger } from '../../shared/observability';
import { sweepFileCleanups, type SweepResult } from '../../shared/store/file-cleanups';

export async function handler(): Promise<SweepResult> {
  const result = await sweepFileCleanups();
  if (result.finished || result.unfinished) logger.info('file sweep', { ...result });
  return result;
}
