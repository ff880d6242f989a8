/**
 * Who made a change (issue 34, item 4): a user through the API, or no user, with where the change
 * came from (`mail`: mail in; `system`: the escalation run, mail delivery events). The write records
 * it on the items it writes (store/actor.ts); the change feed, the subscriptions' payloads and the mail
 * log read it from the stream record (docs/webhooks.md, "Who did it").
 */

/**
 * Where a change came from. `unknown`: an item written before the actor was recorded, or removed with no
 * deletion record naming who (the stream consumer's cleanup of a deleted ticket's leftovers).
 */
export type ActorSource = 'api' | 'mail' | 'system' | 'unknown';

/** What a write records on its items (never shown as such: eventActor is). */
export type WrittenBy = { source: 'api'; id: number; username: string } | { source: 'mail' | 'system' };

/** The actor as events and the mail log name it. */
export interface EventActor {
  actor: { id: number; username: string } | null;
  source: ActorSource;
}

/** The API caller's record. */
export const apiWriter = (user: { id: number; username: string }): WrittenBy => ({
  source: 'api',
  id: user.id,
  username: user.username,
});

/** The actor of an item's last write, from its `written_by` attribute (anything else: unknown). */
export function eventActor(writtenBy: unknown): EventActor {
  const w = writtenBy as Partial<{ source: string; id: number; username: string }> | undefined;
  if (w?.source === 'api' && typeof w.id === 'number' && typeof w.username === 'string')
    return { actor: { id: w.id, username: w.username }, source: 'api' };
  if (w?.source === 'mail' || w?.source === 'system') return { actor: null, source: w.source };
  return { actor: null, source: 'unknown' };
}
