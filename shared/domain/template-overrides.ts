/**
 * Operators' overrides of the mail templates, kept in the table so a change needs no deploy. Each
 * override replaces some of a mail kind's parts (subject, text, HTML), for every queue or for one
 * (a queue's part wins over the global one, which wins over the default).
 */
import type { ParsedBody } from './body';
import { NotFound, ValidationError } from './errors';
import { wireDateTime } from './datetime';
import { idField, textField, validateFields } from './fields';
import { isMailKind, type MailKind } from './mail-settings';
import { effectiveTemplate, templateProblem } from './mail-templates';

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

/**
 * The parts that apply to a mail of `kind` in `queue`: the queue's, else the global one's; absent ones keep the
 * default.
 */
export function effectiveOverride(
  overrides: readonly TemplateOverride[],
  kind: MailKind,
  queue: number,
): Partial<Record<TemplatePart, string>> {
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

/** A template part's longest source (the HTML of a long mail is a few KB). */
export const MAX_TEMPLATE_LENGTH = 20_000;

export const templateOverrideFields = {
  queue: idField({ nullable: true }),
  subject: textField({ nullable: true, maxLength: 500 }),
  text: textField({ nullable: true, maxLength: MAX_TEMPLATE_LENGTH }),
  html: textField({ nullable: true, maxLength: MAX_TEMPLATE_LENGTH }),
};

/** The kind named by a path (404 for none of upstream's). */
export function kindParam(raw: string | undefined): MailKind {
  if (!raw || !isMailKind(raw)) throw new NotFound();
  return raw;
}

/**
 * A PUT's override of `kind`: the parts given replace the default (for `queue`, or every queue);
 * parts left out or null keep it. Each part must render: known names only, sections closed, and the
 * subject one line carrying `{{ ticket.tag }}` (mail-templates.ts `templateProblem`).
 */
export function parseTemplateOverride(kind: MailKind, body: ParsedBody, now: string): TemplateOverride {
  const { values, errors } = validateFields(templateOverrideFields, body.data, 'partial', body.kind);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const parts = Object.fromEntries(TEMPLATE_PARTS.map((p) => [p, values[p] ?? null])) as Record<
    TemplatePart,
    string | null
  >;
  if (TEMPLATE_PARTS.every((p) => parts[p] === null))
    throw new ValidationError({
      non_field_errors: ['Give at least one of subject, text and html (DELETE resets a template).'],
    });
  const problems = templateProblem(
    Object.fromEntries(TEMPLATE_PARTS.filter((p) => parts[p] !== null).map((p) => [p, parts[p]!])),
  );
  if (problems) throw new ValidationError(problems);
  return { kind, queue: values.queue ?? null, ...parts, updated: now };
}

export const templateOverrideView = (o: TemplateOverride) => ({
  kind: o.kind,
  queue: o.queue,
  subject: o.subject,
  text: o.text,
  html: o.html,
  updated: wireDateTime(o.updated)!,
});

/** `?queue=<id>` of GET and DELETE: one queue's override, or (absent) the global one. */
export function queueQuery(raw: string | undefined): number | null {
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw)) throw new ValidationError({ queue: ['A valid integer is required.'] });
  return Number(raw);
}

/** What GET shows of a kind: the template mails of `queue` are rendered with, and which parts are overridden. */
export function effectiveTemplateView(overrides: readonly TemplateOverride[], kind: MailKind, queue: number | null) {
  const parts =
    queue === null
      ? effectiveOverride(
          overrides.filter((o) => o.queue === null),
          kind,
          0,
        )
      : effectiveOverride(overrides, kind, queue);
  return { kind, queue, ...effectiveTemplate(kind, parts), overridden: TEMPLATE_PARTS.filter((p) => p in parts) };
}
