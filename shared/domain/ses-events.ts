/**
 * Amazon SES's sending events as EventBridge delivers them from a configuration set's event
 * destination (detail types "Email Bounced", "Email Complaint Received", "Email Delivered", "Email
 * Rejected"): what each means to the mail log and to the suppression list. Pure: the recorder
 * (shared/mail/ses-events.ts) reads and writes.
 */
import type { MailStatus } from './mail';
import { storedDateTime } from './datetime';
import { sesMessageId } from './mail-threading';
import type { Suppression } from './mail-settings';

/** The detail types the configuration set's rule passes on (infra/mail.ts). */
export const SES_DETAIL_TYPES = [
  'Email Bounced',
  'Email Complaint Received',
  'Email Delivered',
  'Email Rejected',
] as const;
/** The configuration set's event types that send them (SES v2 `MatchingEventTypes`). */
export const SES_EVENT_TYPES = ['BOUNCE', 'COMPLAINT', 'DELIVERY', 'REJECT'] as const;

/** What one SES event says about one sent mail. */
export interface SesMailEvent {
  /** The SendEmail answer's MessageId (the mail's Message-ID is built from it and the region). */
  sesMessageId: string;
  region: string;
  /** What the mail log's entry becomes. */
  status: Extract<MailStatus, 'delivered' | 'bounced' | 'complained'>;
  at: Date;
  /** Why, for the log: a bounce's diagnostic, a complaint's feedback type, a rejection's reason. */
  detail: string;
  /** Addresses to put on the suppression list (hard bounces and complaints only), with why. */
  suppress: Pick<Suppression, 'address' | 'reason' | 'detail'>[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const addressesOf = (list: unknown): { address: string; diagnostic: string }[] =>
  (Array.isArray(list) ? list : [])
    .filter(isObject)
    .map((r) => ({
      address: text(r.emailAddress).trim().toLowerCase(),
      diagnostic: text(r.diagnosticCode) || text(r.status),
    }))
    .filter((r) => r.address !== '');

/** The event's meaning, or undefined for an event that is not one of these (it is logged and dropped). */
export function parseSesEvent(event: unknown): SesMailEvent | undefined {
  if (!isObject(event) || event.source !== 'aws.ses' || !isObject(event.detail)) return undefined;
  const detail = event.detail;
  const mail = isObject(detail.mail) ? detail.mail : {};
  const sesMessageId = text(mail.messageId);
  const region = text(event.region);
  const at = new Date(text(event.time) || Date.now());
  if (!sesMessageId || !region || Number.isNaN(at.getTime())) return undefined;
  const base = { sesMessageId, region, at };
  switch (text(detail.eventType)) {
    case 'Bounce': {
      const bounce = isObject(detail.bounce) ? detail.bounce : {};
      const permanent = bounce.bounceType === 'Permanent';
      const recipients = addressesOf(bounce.bouncedRecipients);
      const why = `${text(bounce.bounceType) || 'Unknown'} bounce (${text(bounce.bounceSubType) || 'General'})`;
      return {
        ...base,
        status: 'bounced',
        detail: [why, ...recipients.map((r) => r.diagnostic).filter(Boolean)].join(': '),
        suppress: permanent
          ? recipients.map((r) => ({
              address: r.address,
              reason: 'bounce' as const,
              detail: [why, r.diagnostic].filter(Boolean).join(': '),
            }))
          : [],
      };
    }
    case 'Complaint': {
      const complaint = isObject(detail.complaint) ? detail.complaint : {};
      const why = `Complaint (${text(complaint.complaintFeedbackType) || 'unspecified'})`;
      return {
        ...base,
        status: 'complained',
        detail: why,
        suppress: addressesOf(complaint.complainedRecipients).map((r) => ({
          address: r.address,
          reason: 'complaint' as const,
          detail: why,
        })),
      };
    }
    case 'Delivery': {
      const delivery = isObject(detail.delivery) ? detail.delivery : {};
      return { ...base, status: 'delivered', detail: text(delivery.smtpResponse), suppress: [] };
    }
    case 'Reject': {
      // SES refused to send it (a virus found): a mail that never left, recorded as bounced with SES's reason.
      const reject = isObject(detail.reject) ? detail.reject : {};
      return {
        ...base,
        status: 'bounced',
        detail: `Rejected by SES: ${text(reject.reason) || 'no reason given'}`,
        suppress: [],
      };
    }
    default:
      return undefined;
  }
}

/**
 * The Message-ID the recipient saw: SES's id at its region's host. An id with an `@` is a whole
 * Message-ID already (SES's ids never have one): the local stand-in's events name the mailbox's mails so.
 */
export function messageIdOf(event: Pick<SesMailEvent, 'sesMessageId' | 'region'>): string {
  if (event.sesMessageId.includes('@')) return `<${event.sesMessageId.replace(/^<|>$/g, '')}>`;
  return sesMessageId(event.sesMessageId, event.region);
}

export type SimulatedEventType = 'bounce' | 'complaint' | 'delivery' | 'reject';

/**
 * An SES event as EventBridge delivers it, for the local stand-in (`npm run helpdesk -- ses-event`)
 * and tests: a permanent bounce, a complaint, a delivery or a rejection of the mail `messageId`
 * (a whole Message-ID, `<...>`) to `recipient`. The fields are those SES documents for its events.
 */
export function simulatedSesEvent(
  type: SimulatedEventType,
  messageId: string,
  recipient: string,
  at = new Date(),
): Record<string, unknown> {
  const time = at.toISOString();
  const detailType = {
    bounce: 'Email Bounced',
    complaint: 'Email Complaint Received',
    delivery: 'Email Delivered',
    reject: 'Email Rejected',
  }[type];
  const mail = {
    timestamp: time,
    source: 'helpdesk@localhost',
    messageId: messageId.replace(/^<|>$/g, ''),
    destination: [recipient],
    tags: { 'ses:configuration-set': ['local'] },
  };
  const detail = {
    bounce: {
      eventType: 'Bounce',
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [
          {
            emailAddress: recipient,
            action: 'failed',
            status: '5.1.1',
            diagnosticCode: 'smtp; 550 5.1.1 user unknown (simulated)',
          },
        ],
        timestamp: time,
      },
    },
    complaint: {
      eventType: 'Complaint',
      complaint: {
        complainedRecipients: [{ emailAddress: recipient }],
        complaintFeedbackType: 'abuse',
        timestamp: time,
      },
    },
    delivery: {
      eventType: 'Delivery',
      delivery: { timestamp: time, recipients: [recipient], smtpResponse: '250 2.0.0 OK (simulated)' },
    },
    reject: { eventType: 'Reject', reject: { reason: 'Bad content (simulated)' } },
  }[type];
  return {
    version: '0',
    id: `local-${at.getTime()}`,
    'detail-type': detailType,
    source: 'aws.ses',
    account: '000000000000',
    time,
    region: 'local',
    resources: [],
    detail: { ...detail, mail },
  };
}

/** The suppression entries of an event, as stored. */
export function suppressionsOf(event: SesMailEvent, messageId: string): Suppression[] {
  return event.suppress.map((s) => ({ ...s, since: storedDateTime(event.at), message_id: messageId }));
}
