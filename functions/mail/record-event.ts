/**
 * The SES event recorder: one EventBridge event (a bounce, complaint, delivery or rejection from the
 * configuration set: infra/mail.ts) per invocation. A failure throws, so EventBridge retries it and
 * then sends it to the recorder's dead-letter queue (whose alarm tells the operator).
 */
import type { EventBridgeEvent } from 'aws-lambda';
import { recordSesEvent } from '../../shared/mail/ses-events';

export async function handler(event: EventBridgeEvent<string, unknown>): Promise<void> {
  await recordSesEvent(event);
}
