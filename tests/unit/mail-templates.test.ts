import { describe, expect, it } from 'vitest';
import { MAIL_KINDS } from '../../shared/domain/mail-settings';
import {
  MAIL_TEMPLATE_NAMES,
  defaultTemplate,
  effectiveTemplate,
  headerSafe,
  renderMail,
  templateProblem,
  ticketTag,
  type MailTemplateContext,
} from '../../shared/domain/mail-templates';

const context = (over: Partial<MailTemplateContext> = {}): MailTemplateContext => ({
  ...(Object.fromEntries(MAIL_TEMPLATE_NAMES.map((n) => [n, ''])) as MailTemplateContext),
  'ticket.tag': ticketTag('support', 12),
  'ticket.id': '12',
  'ticket.title': 'Printer on fire',
  'ticket.status': 'Open',
  'queue.title': 'Support',
  ...over,
});

describe('default templates', () => {
  it.each(MAIL_KINDS)('%s is valid and carries the tag in its subject', (kind) => {
    const t = defaultTemplate(kind);
    expect(templateProblem(t)).toBeUndefined();
    expect(renderMail(t, context()).subject.startsWith('[support-12] Printer on fire (')).toBe(true);
  });

  it('read well: the intro, the details given, and no empty sections', () => {
    const mail = renderMail(defaultTemplate('resolved_submitter'), context({ resolution: 'Replaced the fuser.' }));
    expect(mail.subject).toBe('[support-12] Printer on fire (Resolved)');
    expect(mail.text).toContain('Your ticket has been resolved.');
    expect(mail.text).toContain('Title: Printer on fire\n');
    expect(mail.text).toContain('\nResolution:\nReplaced the fuser.\n');
    expect(mail.text).not.toContain('Comment:');
    expect(mail.text).not.toContain('Priority');
    expect(mail.text).not.toMatch(/\{\{|\}\}/);
    expect(mail.html).toContain('<h3>Resolution</h3><p>Replaced the fuser.</p>');
    // Staff mails show the staff details.
    expect(renderMail(defaultTemplate('assigned_owner'), context({ 'ticket.priority': '3. Normal' })).text).toContain(
      'Priority: 3. Normal',
    );
  });
});

describe('values', () => {
  it('are escaped in HTML, kept as text in the text part', () => {
    const mail = renderMail(
      defaultTemplate('updated_cc'),
      context({ 'ticket.title': '<script>alert(1)</script> & "x"', comment: 'line 1\n<b>line 2</b>' }),
    );
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;');
    expect(mail.html).toContain('line 1<br>\n&lt;b&gt;line 2&lt;/b&gt;');
    expect(mail.text).toContain('line 1\n<b>line 2</b>');
  });

  it('cannot break the subject into another header', () => {
    const mail = renderMail(
      defaultTemplate('newticket_submitter'),
      context({ 'ticket.title': 'Hi\r\nBcc: victim@example.com\u2028X: y\u0085' }),
    );
    expect(mail.subject).toBe('[support-12] Hi Bcc: victim@example.com X: y (Opened)');
    expect(headerSafe('x'.repeat(300))).toHaveLength(250);
  });

  it('cuts a long line between characters, never inside an emoji (a surrogate pair)', () => {
    const cut = headerSafe('x' + '😀'.repeat(300));
    expect([...cut]).toHaveLength(250);
    expect(cut.endsWith('😀…')).toBe(true);
  });

  it('a value that looks like a template stays a value', () => {
    expect(
      renderMail(
        { subject: '{{ ticket.tag }}', text: '{{ comment }}', html: '' },
        context({ comment: '{{ ticket.id }} {{#comment}}' }),
      ).text,
    ).toBe('{{ ticket.id }} {{#comment}}');
  });
});

describe('overrides', () => {
  it('refuse a subject without the tag, an unknown name, a section left open', () => {
    expect(templateProblem({ subject: 'Your ticket {{ ticket.title }}' })?.subject?.[0]).toMatch(
      /must contain \{\{ ticket.tag \}\}/,
    );
    expect(templateProblem({ text: 'Hi {{ ticket.secret_key }}' })?.text?.[0]).toMatch(
      /Unknown name "ticket.secret_key"/,
    );
    expect(templateProblem({ html: '{{#comment}}<p>{{ comment }}</p>' })?.html?.[0]).toMatch(/never closed/);
    expect(templateProblem({ html: '{{/comment}}' })?.html?.[0]).toMatch(/closes no/);
    expect(templateProblem({ subject: '{{ ticket.tag }}\nBcc: x' })?.subject).toEqual(['Line breaks are not allowed.']);
    expect(
      templateProblem({
        subject: '[{{ ticket.tag }}] {{ ticket.title }}',
        text: '{{#comment}}{{ comment }}{{/comment}}',
      }),
    ).toBeUndefined();
  });

  it('replace only the parts given', () => {
    const t = effectiveTemplate('newticket_submitter', { subject: 'New: {{ ticket.tag }}', html: '' });
    expect(t.subject).toBe('New: {{ ticket.tag }}');
    expect(t.html).toBe(defaultTemplate('newticket_submitter').html);
  });
});
