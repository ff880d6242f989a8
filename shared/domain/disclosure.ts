/**
 * What may leave the staff's trust: the one policy every outbound path follows (the environment's
 * receivers, subscriptions, and the e-mail to people outside the staff). Staff see everything in
 * GET and in the change feed; everyone else sees a ticket as its submitter could:
 *
 * - no private followup (nor its files): a private followup, or its attachment, is named by its ids only;
 * - no staff-only custom field (values and changes);
 * - no private followup's text by way of `resolution`. Upstream copies a resolving followup's comment
 *   into the ticket's resolution whether the followup is public or not (update_ticket.py), and then
 *   shows it on the submitter's page and in their e-mail. Here the ticket records where its
 *   resolution came from (`resolution_private`), GET shows staff the text as upstream does, and
 *   outside the staff the resolution is null while it is a private followup's comment. A resolution
 *   staff write themselves (PUT, PATCH) is public, as upstream's form says ("If this is public, the
 *   submitter will be e-mailed your comment or resolution").
 *
 * Deployments that trust their receivers with everything set HELPDESK_WEBHOOK_INCLUDE_PRIVATE=true
 * (`includePrivate`), which turns the whole policy off for webhooks.
 */
import { CUSTOM_PREFIX } from './custom-fields';
import type { ChangeEvent, FieldChange, JsonValue } from './events';
import type { Ticket } from './records';

/** The ticket fields holding text only staff may see (a private followup's comment as the resolution). */
export function privateTicketFields(ticket: Pick<Ticket, 'resolution_private'>): string[] {
  return ticket.resolution_private ? ['resolution'] : [];
}

/**
 * The resolution someone outside the staff may see: null while it is a private followup's comment.
 * The e-mail to a submitter shows this, never `ticket.resolution` itself.
 */
export function publicResolution(ticket: Pick<Ticket, 'resolution' | 'resolution_private'>): string | null {
  return ticket.resolution_private ? null : ticket.resolution;
}

/** The ticket as someone outside the staff may see its own fields (publicResolution). */
export function disclosedTicket<T extends Pick<Ticket, 'resolution' | 'resolution_private'>>(ticket: T): T {
  return ticket.resolution_private ? { ...ticket, resolution: publicResolution(ticket) } : ticket;
}

/**
 * A ticket's collection as someone outside the staff may see it: without private followups (and
 * their attachments), without staff-only custom fields, without a private resolution; unless
 * `includePrivate`.
 */
export function disclosedCollection<
  C extends {
    ticket: Pick<Ticket, 'resolution' | 'resolution_private'>;
    followups: { id: number; public: boolean }[];
    attachments: { followup: number }[];
  },
  D extends { staff_only: boolean },
>(collection: C, defs: D[], includePrivate: boolean): { collection: C; defs: D[] } {
  if (includePrivate) return { collection, defs };
  const shown = new Set(collection.followups.filter((f) => f.public).map((f) => f.id));
  return {
    collection: {
      ...collection,
      ticket: disclosedTicket(collection.ticket),
      followups: collection.followups.filter((f) => shown.has(f.id)),
      attachments: collection.attachments.filter((a) => shown.has(a.followup)),
    },
    defs: defs.filter((d) => !d.staff_only),
  };
}

type Data = Record<string, JsonValue>;

/**
 * A change event as someone outside the staff may see it, or undefined when the change is one they
 * cannot see at all (an update whose every changed field is hidden: a PATCH of a staff-only field,
 * a private resolution replaced by another): nothing is sent then. `staffOnlyFields` are the custom
 * fields' names. A private followup or its attachment (`public` false) is named by its ids only.
 */
export function disclosedEvent(
  event: ChangeEvent,
  staffOnlyFields: readonly string[],
  includePrivate: boolean,
): ChangeEvent | undefined {
  if (includePrivate) return event;
  if (event.data.public === false) {
    const ids = Object.fromEntries(
      ['id', 'ticket', 'followup', 'public'].filter((k) => k in event.data).map((k) => [k, event.data[k]!]),
    );
    return { ...event, changes: null, data: ids };
  }
  const hidden = new Set(staffOnlyFields.map((name) => `${CUSTOM_PREFIX}${name}`));
  const before = new Set(event.private_fields?.before);
  const after = new Set(event.private_fields?.after);
  // `data` is the record after the change, or before it for a deletion.
  const privateInData = event.event.endsWith('.deleted') ? before : after;
  const data: Data = {};
  for (const [key, value] of Object.entries(event.data)) {
    if (hidden.has(key)) continue;
    data[key] = privateInData.has(key) ? null : value;
  }
  if (Array.isArray(data.followup_set))
    data.followup_set = data.followup_set.filter((f) => (f as Data).public !== false);
  let changes: Record<string, FieldChange> | null = null;
  if (event.changes) {
    changes = {};
    for (const [key, change] of Object.entries(event.changes)) {
      if (hidden.has(key)) continue;
      const shown = { old: before.has(key) ? null : change.old, new: after.has(key) ? null : change.new };
      if (JSON.stringify(shown.old) !== JSON.stringify(shown.new)) changes[key] = shown;
    }
    if (!Object.keys(changes).length) return undefined;
  }
  const { private_fields: _, ...shown } = event;
  return { ...shown, changes, data };
}
