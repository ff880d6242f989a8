/**
 * `If-Match` on ticket writes (PUT, PATCH, DELETE). Not a handler itself.
 *
 * The header is compared with the tag of the ticket as read, and the write that follows is
 * conditional on the version read: together that is the atomic check "write only if the ticket is
 * still the one the client saw" (a followup or attachment added in between does not hold the ticket
 * item, so it can land between the check and the write: the write still applies to the ticket as read). When the
 * conditional write loses to another writer, the handler reads again and calls this again, which then answers 412 (a
 * request without If-Match just retries).
 */
import type { CustomFieldDefinition } from '../../shared/domain/custom-fields';
import {
  namesRevisionWithOtherDefinitions,
  requireIfMatch,
  ticketETag,
  ticketRevision,
} from '../../shared/domain/etag';
import { header, type ApiEvent } from '../../shared/middleware/http';
import { listCustomFields } from '../../shared/store/custom-fields';
import type { ReadCollection } from '../../shared/store/items';

/**
 * Throws 412 unless the request's `If-Match` (if any) matches `current`. Returns the custom field
 * definitions the tag was checked with: the cached ones, or fresh ones when the client's tag names
 * this revision with other definitions (this function's cache may be the stale side; costs one read
 * only then).
 */
export async function checkIfMatch(
  event: ApiEvent,
  current: ReadCollection,
  defs: CustomFieldDefinition[],
): Promise<CustomFieldDefinition[]>;
export async function checkIfMatch(event: ApiEvent, current: ReadCollection): Promise<void>;
export async function checkIfMatch(
  event: ApiEvent,
  current: ReadCollection,
  defs?: CustomFieldDefinition[],
): Promise<CustomFieldDefinition[] | void> {
  const condition = header(event, 'if-match');
  if (condition === undefined) return defs;
  defs ??= await listCustomFields();
  const revision = ticketRevision(current);
  const etag = ticketETag(revision, defs);
  if (namesRevisionWithOtherDefinitions(condition, revision, etag)) {
    const fresh = await listCustomFields({ fresh: true });
    requireIfMatch(condition, ticketETag(revision, fresh));
    return fresh;
  }
  requireIfMatch(condition, etag);
  return defs;
}
