/**
 * The mail templates (issue 22): a subject, a text body and an HTML body for every kind, the
 * defaults below, which an operator may override kind by kind (stored by the mail settings; the
 * sender reads them at each send, so no redeploy). Pure.
 *
 * The language is small on purpose: `{{ name }}` puts a value in (escaped in HTML: a ticket's title
 * cannot add markup), `{{#name}}...{{/name}}` keeps its inside only when the value is not empty.
 * Names are the context's (MAIL_TEMPLATE_NAMES); a template naming another is refused when stored,
 * as is a subject without `{{ ticket.tag }}` (upstream's `[<queue-slug>-<id>]`, which its
 * HELPDESK_EMAIL_SUBJECT_TEMPLATE requires: mail in finds a ticket by it too). The subject is made
 * one line of printable text whatever the values hold, so nothing can inject a header.
 */
import type { MailKind } from './mail-settings';

export interface MailTemplate {
  subject: string;
  text: string;
  html: string;
}

/** What a template may name: flat names, dotted as the context nests them. */
export const MAIL_TEMPLATE_NAMES = [
  'ticket.tag',
  'ticket.id',
  'ticket.title',
  'ticket.status',
  'ticket.priority',
  'ticket.submitter_email',
  'ticket.assigned_to',
  'ticket.description',
  'queue.title',
  'queue.slug',
  'comment',
  'resolution',
  'files',
  'recipient',
] as const;
export type MailTemplateName = (typeof MAIL_TEMPLATE_NAMES)[number];

/** The values a mail is rendered with: every name a string (empty when the mail has none). */
export type MailTemplateContext = Record<MailTemplateName, string>;

/**
 * What only staff are told: a CC who is not staff (an outsider) gets the submitter's view, these values empty
 * whatever the template (an override included) names, so their sections drop out.
 */
export const STAFF_ONLY_NAMES = ['ticket.priority', 'ticket.submitter_email', 'ticket.assigned_to'] as const;

/** `context` as an outsider may see it. */
export function outsiderContext(context: MailTemplateContext): MailTemplateContext {
  return { ...context, ...Object.fromEntries(STAFF_ONLY_NAMES.map((name) => [name, ''])) };
}

/** The subject's tag of a ticket, upstream's `ticket.ticket`: `[<queue slug>-<id>]`. */
export const ticketTag = (queueSlug: string, ticket: number) => `[${queueSlug}-${ticket}]`;

const TAG = /\{\{\s*ticket\.tag\s*\}\}/;
const TOKEN = /\{\{\s*([#/]?)([a-z_.]+)\s*\}\}/g;

/** Why a template (or a part of one, being overridden) is refused; undefined when it is fine. */
export function templateProblem(template: Partial<MailTemplate>): Record<string, string[]> | undefined {
  const problems: Record<string, string[]> = {};
  for (const [part, source] of Object.entries(template) as [keyof MailTemplate, string][]) {
    const issues: string[] = [];
    const open: string[] = [];
    for (const [, mark, name] of source.matchAll(TOKEN)) {
      if (!(MAIL_TEMPLATE_NAMES as readonly string[]).includes(name!))
        issues.push(`Unknown name "${name}" (names: ${MAIL_TEMPLATE_NAMES.join(', ')}).`);
      else if (mark === '#') open.push(name!);
      else if (mark === '/' && open.pop() !== name) issues.push(`"{{/${name}}}" closes no "{{#${name}}}".`);
    }
    if (open.length) issues.push(`"{{#${open.at(-1)}}}" is never closed.`);
    if (part === 'subject' && !TAG.test(source))
      issues.push(
        "The subject must contain {{ ticket.tag }} (the ticket's [queue-id] tag, which replies are threaded by).",
      );
    if (part === 'subject' && /[\r\n]/.test(source)) issues.push('Line breaks are not allowed.');
    if (issues.length) problems[part] = issues;
  }
  return Object.keys(problems).length ? problems : undefined;
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Text in HTML: escaped, its line breaks kept. */
const htmlText = (value: string) => escapeHtml(value).replace(/\r?\n/g, '<br>\n');

function render(source: string, context: MailTemplateContext, put: (value: string) => string): string {
  // Sections first (innermost out: a section holds no other of the same name), then values.
  let out = source;
  for (let changed = true; changed;) {
    const next = out.replace(
      /\{\{\s*#([a-z_.]+)\s*\}\}((?:(?!\{\{\s*#\1\s*\}\})[\s\S])*?)\{\{\s*\/\1\s*\}\}/g,
      (_, name: string, inside: string) => (context[name as MailTemplateName] ? inside : ''),
    );
    changed = next !== out;
    out = next;
  }
  return out.replace(TOKEN, (_, _mark: string, name: string) => put(context[name as MailTemplateName] ?? ''));
}

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators: what could break a header line. */
const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;

/** One line of printable text, at most `max` characters: no value can split a header or add one. */
export function headerSafe(value: string, max = 250): string {
  let line = '';
  for (const c of value) line += isControl(c.codePointAt(0)!) ? ' ' : c;
  line = line.replace(/\s+/g, ' ').trim();
  // Cut by code points: a cut between a surrogate pair's halves would leave half an emoji, which is not text.
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : line;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export function renderMail(template: MailTemplate, context: MailTemplateContext): RenderedMail {
  return {
    subject: headerSafe(render(template.subject, context, (v) => v)),
    text: render(template.text, context, (v) => v),
    html: render(template.html, context, htmlText),
  };
}

/** Who a kind is for: the submitter, the assignee (owner), or CCs. */
const audienceOf = (kind: MailKind) => kind.slice(kind.lastIndexOf('_') + 1) as 'submitter' | 'owner' | 'cc';

/** Each kind's subject (after the tag and title, as upstream's) and opening line. */
const WORDING: Record<MailKind, { subject: string; intro: string }> = {
  newticket_submitter: {
    subject: '(Opened)',
    intro: 'Thank you for your message. A ticket has been opened for it; we will be in touch by e-mail.',
  },
  newticket_cc: { subject: '(Opened)', intro: 'A new ticket has been opened.' },
  assigned_owner: { subject: '(Assigned to you)', intro: 'This ticket has been assigned to you.' },
  assigned_submitter: {
    subject: '(Assigned)',
    intro: 'Your ticket has been assigned to someone who will look after it.',
  },
  assigned_cc: { subject: '(Assigned)', intro: 'This ticket has been assigned.' },
  updated_submitter: { subject: '(Updated)', intro: 'Your ticket has been updated.' },
  updated_owner: { subject: '(Updated)', intro: 'A ticket assigned to you has been updated.' },
  updated_cc: { subject: '(Updated)', intro: 'A ticket has been updated.' },
  resolved_submitter: { subject: '(Resolved)', intro: 'Your ticket has been resolved.' },
  resolved_owner: { subject: '(Resolved)', intro: 'A ticket assigned to you has been resolved.' },
  resolved_cc: { subject: '(Resolved)', intro: 'A ticket has been resolved.' },
  closed_submitter: { subject: '(Closed)', intro: 'Your ticket has been closed.' },
  closed_owner: { subject: '(Closed)', intro: 'A ticket assigned to you has been closed.' },
  closed_cc: { subject: '(Closed)', intro: 'A ticket has been closed.' },
  escalated_submitter: {
    subject: '(Escalated)',
    intro: 'Your ticket has been escalated: it has waited longer than it should, and is now more urgent.',
  },
  escalated_cc: { subject: '(Escalated)', intro: 'A ticket has been escalated: it has waited longer than it should.' },
  escalated_owner: {
    subject: '(Escalated)',
    intro: 'A ticket assigned to you has been escalated: it has waited longer than it should.',
  },
};

/** The default template of a kind. */
export function defaultTemplate(kind: MailKind): MailTemplate {
  const { subject, intro } = WORDING[kind];
  const staff = audienceOf(kind) !== 'submitter';
  const details: [string, MailTemplateName][] = [
    ['Ticket', 'ticket.tag'],
    ['Title', 'ticket.title'],
    ['Queue', 'queue.title'],
    ['Status', 'ticket.status'],
    ...(staff
      ? ([
          ['Priority', 'ticket.priority'],
          ['Submitter', 'ticket.submitter_email'],
          ['Assigned to', 'ticket.assigned_to'],
        ] as [string, MailTemplateName][])
      : []),
  ];
  const blocks: [string, MailTemplateName][] = [
    ['Description', 'ticket.description'],
    ['Comment', 'comment'],
    ['Resolution', 'resolution'],
    ['Files', 'files'],
  ];
  const reply = staff
    ? 'Reply to this e-mail to add a comment to the ticket.'
    : 'Reply to this e-mail to add to your ticket; keep the tag in the subject.';
  const text =
    `Hello,\n\n${intro}\n\n` +
    details.map(([label, name]) => `{{#${name}}}${label}: {{ ${name} }}\n{{/${name}}}`).join('') +
    blocks.map(([label, name]) => `{{#${name}}}\n${label}:\n{{ ${name} }}\n{{/${name}}}`).join('') +
    `\n${reply}\n\n-- \n{{ queue.title }}\n`;
  const labelStyle = 'text-align: left; padding-right: 1em;';
  const html = [
    '<!DOCTYPE html><html><body style="font-family: sans-serif; line-height: 1.4;">',
    '<p>Hello,</p>',
    `<p>${escapeHtml(intro)}</p>`,
    '<table style="border-collapse: collapse;">',
    ...details.map(
      ([label, name]) =>
        `{{#${name}}}<tr><th style="${labelStyle}">${label}</th><td>{{ ${name} }}</td></tr>{{/${name}}}`,
    ),
    '</table>',
    ...blocks.map(([label, name]) => `{{#${name}}}<h3>${label}</h3><p>{{ ${name} }}</p>{{/${name}}}`),
    `<p style="color: #555;">${escapeHtml(reply)}</p>`,
    '<p>-- <br>{{ queue.title }}</p>',
    '</body></html>',
  ].join('\n');
  return { subject: `{{ ticket.tag }} {{ ticket.title }} ${subject}`, text, html };
}

/** The template a mail is rendered with: the default, with the parts an operator overrode. */
export function effectiveTemplate(kind: MailKind, override?: Partial<MailTemplate>): MailTemplate {
  return {
    ...defaultTemplate(kind),
    ...Object.fromEntries(Object.entries(override ?? {}).filter(([, v]) => typeof v === 'string' && v !== '')),
  };
}
