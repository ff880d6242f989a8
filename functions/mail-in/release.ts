/**
 * The mail release function (infra/mail-release.ts; locally the runtime's Lambda endpoint, infra/local/lambda.ts):
 * invoked by the API's release of a held or failed message (shared/mail-in/problems.ts), it runs the kept message
 * through the one ingest again, past its hold (shared/mail-in/rerun.ts), with mail in's grants and parsing worker.
 * Invoked synchronously: Lambda does not run it again on an error, and the route hears the outcome.
 */
import { metrics } from '../../shared/observability';
import { runRelease, type ReleaseAnswer, type ReleaseRequest } from '../../shared/mail-in/rerun';

export async function handler(event: ReleaseRequest): Promise<ReleaseAnswer> {
  try {
    return await runRelease(event);
  } finally {
    metrics.publishStoredMetrics();
  }
}
