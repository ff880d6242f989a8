/**
 * The daily escalation, on a schedule (infra/escalation.ts: EventBridge Scheduler, reserved
 * concurrency 1): store/escalation.ts `runEscalation` for every queue with `escalate_days`. A run
 * that cannot reach DynamoDB fails (and raises the alarm); running again the same day escalates
 * only what the first run did not.
 */
import { logger } from '../../shared/observability';
import { runEscalation, type EscalationResult } from '../../shared/store/escalation';

export async function handler(): Promise<Omit<EscalationResult, 'escalated'> & { escalated: number }> {
  const result = await runEscalation();
  logger.info('escalation', {
    day: result.day,
    escalated: result.escalated.length,
    alreadyToday: result.alreadyToday.length,
    changed: result.changed.length,
  });
  return { ...result, escalated: result.escalated.length };
}
