/**
 * Operators' overrides of the mail templates, kept in the table so a change needs no deploy. Each
 * override replaces some of a mail kind's parts (subject, text, HTML), for every queue or for one
 * (a queue's part wins over the global one, which wins over the default).
 */
import type { MailKind } from './mail-settings';

export const TEMPLATE_PARTS = ['subject', 'text', 'html'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];

export interface TemplateOverride {
  kind: MailKind;
  /** null: every queue. */
  queue: number | null;
  /** Each part: the operator's template, or null to keep the one below it. */
  subject: string | null;
  text: string | null;
  html: string | null;
  /** When it was last set (stored date-time). */
  updated: string;
}

/** The parts that apply to a mail of `kind` in `queue`: the queue's, else the global one's; absent ones keep the default. */
export function effectiveOverride(overrides: readonly TemplateOverride[], kind: MailKind, queue: number): Partial<Record<TemplatePart, string>> {
  const of = (q: number | null) => overrides.find((o) => o.kind === kind && o.queue === q);
  const result: Partial<Record<TemplatePart, string>> = {};
  for (const source of [of(null), of(queue)]) {
    for (const part of TEMPLATE_PARTS) {
      const value = source?.[part];
      if (value != null) result[part] = value;
    }
  }
  return result;
}
