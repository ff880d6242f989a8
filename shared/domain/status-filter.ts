/** `?status=`: comma-separated state ids or names (any case); an unknown token is a 400. */
import { ValidationError } from './errors';
import { MESSAGES } from './fields';
import { STATUS_LABELS } from './records';

const BY_NAME = new Map(Object.entries(STATUS_LABELS).map(([id, label]) => [label.toLowerCase(), Number(id)]));

/** Returns the set of statuses to keep, or undefined for no filter. */
export function parseStatusFilter(raw: string | undefined): Set<number> | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const statuses = new Set<number>();
  for (const token of raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)) {
    const id = /^\d+$/.test(token) ? Number(token) : BY_NAME.get(token.toLowerCase());
    if (id === undefined || !STATUS_LABELS[id]) throw new ValidationError({ status: [MESSAGES.choice(token)] });
    statuses.add(id);
  }
  return statuses.size ? statuses : undefined;
}
