/**
 * django-helpdesk's `manage.py dumpdata` (JSON: a list of `{model, pk, fields}`) to this API's records
 * and back (issue 37). Pure: the CLI reads the dump and the media files, the store writes what this
 * returns (store/django-import.ts), and the export reads the records and writes what `toDjango` gives.
 *
 * Ids are kept as they are (tickets, followups, queues, users, custom fields, attachments, CCs), so the
 * `[slug-id]` subject tags of old mail and the ids integrations stored keep pointing at the same records.
 * Models this product has no place for are counted in the report with why, never dropped silently.
 */
import type { CustomFieldDefinition, DataType } from '../domain/custom-fields';
import { DATA_TYPES } from '../domain/custom-fields';
import { parseDateTime } from '../domain/datetime';
import { formatDuration, parseDuration, SLUG } from '../domain/fields';
import type { TicketCc } from '../domain/mail-settings';
import type { Attachment, Followup, Queue, Ticket, TicketChange, User } from '../domain/records';
import { LOCALE, MAX_LOCALE_LENGTH } from '../domain/search-language';
import { MAX_TICKET_TEXT_BYTES, ticketTextBytes } from '../domain/ticket';
import { utf8Bytes, utf8Head } from '../domain/utf8';

export interface DjangoObject {
  model: string;
  pk: unknown;
  fields: Record<string, unknown>;
}

/**
 * Queue settings upstream has and this API keeps only to give back (the export): allow_email_submission,
 * mailbox … (and a `locale` this API cannot read: kept as it was, the queue without one).
 */
export type QueueExtras = Record<string, unknown>;
export type ImportedQueue = Queue & { django?: QueueExtras };

export interface ImportedAttachment extends Attachment {
  /** The file's path under MEDIA_ROOT, as upstream's FileField holds it (none for a file the import makes). */
  file: string;
  /** The file's content, for a file the import makes: the whole of a text too long for its record. */
  text?: string;
}

export interface ImportedTicket {
  ticket: Omit<Ticket, 'secret_key'> & { secret_key: string | null };
  followups: Followup[];
  attachments: ImportedAttachment[];
}

export interface ImportedToken {
  key: string;
  user: string;
  created: string;
}

export interface ImportReport {
  /** Objects taken in, per model. */
  imported: Record<string, number>;
  /** Objects left out, per model, with why. */
  skipped: Record<string, { count: number; why: string }>;
  warnings: string[];
  /** Users whose hash this API cannot verify: imported with an unusable password. */
  unusablePasswords: string[];
  /** Records whose text no item can hold, even cut (keepLongTextWhole): the import writes nothing while any are. */
  tooLarge: string[];
}

export interface ImportPlan {
  users: User[];
  queues: ImportedQueue[];
  customFields: (CustomFieldDefinition & { id: number })[];
  tickets: ImportedTicket[];
  ccs: TicketCc[];
  tokens: ImportedToken[];
  report: ImportReport;
}

/** Why a model is not imported: what this product does not have. */
const NOT_HERE: Record<string, string> = {
  'helpdesk.kbcategory': 'no knowledge base',
  'helpdesk.kbitem': 'no knowledge base',
  'helpdesk.kbiattachment': 'no knowledge base',
  'helpdesk.savedsearch': 'no saved searches',
  'helpdesk.usersettings': 'no per-user settings',
  'helpdesk.presetreply': 'no pre-set replies',
  'helpdesk.emailtemplate': 'mail templates are set per kind (mail-templates), not imported',
  'helpdesk.ticketdependency': 'no ticket dependencies',
  'helpdesk.checklist': 'no checklists',
  'helpdesk.checklisttask': 'no checklists',
  'helpdesk.checklisttemplate': 'no checklists',
  'helpdesk.escalationexclusion': 'not imported: set again with `create-escalation-exclusions`',
  'helpdesk.ignoreemail': 'not imported: set again with `ignore-sender`',
  'helpdesk.queuemembership': 'no queue memberships (per-queue grants come from permissions)',
  'auth.permission': 'read only for the per-queue grants',
  'auth.group': 'no groups: their queue grants go to their members',
  'contenttypes.contenttype': 'no content types',
  'sessions.session': 'no sessions',
  'admin.logentry': 'no admin log',
};

/** The models the import reads (the others are skipped, NOT_HERE saying why, or "unknown model"). */
export const IMPORTED_MODELS = [
  'auth.user',
  'authtoken.token',
  'helpdesk.queue',
  'helpdesk.customfield',
  'helpdesk.ticket',
  'helpdesk.ticketcustomfieldvalue',
  'helpdesk.followup',
  'helpdesk.ticketchange',
  'helpdesk.followupattachment',
  'helpdesk.ticketcc',
] as const;

/** Upstream's per-queue permission codename (Queue.prepare_permission_name). */
export const QUEUE_PERMISSION_PREFIX = 'queue_access_';

/** A key for a custom field's values that names its upstream id (kept for the export). */
export const customFieldKey = (id: number) => `django-${id}`;
const idOfCustomFieldKey = (key: string) => (/^django-(\d+)$/.exec(key) ? Number(key.slice(7)) : undefined);

/** Hash schemes verified at sign-in (domain/password.ts); any other is kept unusable behind `!`. */
const VERIFIED_HASHERS = new Set(['pbkdf2_sha256', 'pbkdf2_sha1', 'scrypt']);
const UNUSABLE = '!';

/**
 * A Django password hash as this API stores it: as it is when verified here; an unusable one (`!…`, empty) as it
 * is; another scheme (argon2, bcrypt_sha256, md5 …) unusable, `!` then the hash, so that an export gives it back.
 */
export function importedPasswordHash(hash: string): { stored: string; unknown?: string } {
  if (!hash || hash.startsWith(UNUSABLE)) return { stored: hash || UNUSABLE };
  const scheme = hash.split('$')[0]!;
  if (VERIFIED_HASHERS.has(scheme)) return { stored: hash };
  return { stored: `${UNUSABLE}${hash}`, unknown: scheme };
}

/** The hash an export writes: an unknown scheme kept behind `!` goes back as it came. */
export function exportedPasswordHash(stored: string): string {
  return stored.startsWith(UNUSABLE) && stored.includes('$') ? stored.slice(1) : stored;
}

/** A dumped scalar as text (dumpdata writes strings, numbers and booleans; anything else is JSON). */
const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : JSON.stringify(v));
const strOrNull = (v: unknown): string | null => (v == null || v === '' ? null : str(v));
const num = (v: unknown): number | null => (v == null || v === '' ? null : Number(v));
const bool = (v: unknown, otherwise = false): boolean => (typeof v === 'boolean' ? v : otherwise);

function when(v: unknown, what: string, warnings: string[]): string | null {
  if (v == null || v === '') return null;
  const stored = parseDateTime(str(v));
  if (!stored) warnings.push(`${what}: date-time "${str(v)}" not understood, left empty`);
  return stored;
}

/** A foreign key as dumped: an id, or with --natural-foreign a user's natural key `[username]`. */
function userRef(v: unknown, byUsername: Map<string, number>): number | null {
  if (v == null) return null;
  if (Array.isArray(v)) return byUsername.get(str(v[0])) ?? null;
  return Number(v);
}

/** A permission as dumped: `[codename, app_label, model]` with --natural-foreign, else an id (unreadable). */
function queueGrant(permission: unknown): string | undefined {
  if (!Array.isArray(permission)) return undefined;
  const [codename, app] = permission as unknown[];
  return app === 'helpdesk' && typeof codename === 'string' && codename.startsWith(QUEUE_PERMISSION_PREFIX)
    ? codename.slice(QUEUE_PERMISSION_PREFIX.length)
    : undefined;
}

const QUEUE_FIELDS = new Set([
  'title',
  'slug',
  'email_address',
  'new_ticket_cc',
  'updated_ticket_cc',
  'escalate_days',
  'allow_public_submission',
  'locale',
]);
/** Never kept: the mailbox password is a secret, and IMAP mail in is configured with its own. */
const QUEUE_SECRETS = new Set(['email_box_pass']);

function queueOf(o: DjangoObject, warnings: string[]): ImportedQueue {
  const f = o.fields;
  const id = Number(o.pk);
  let slug = str(f.slug);
  if (!SLUG.pattern.test(slug)) {
    const changed = slug.replace(/[^-a-zA-Z0-9_]/g, '-') || `queue-${id}`;
    warnings.push(`queue ${id}: slug "${slug}" changed to "${changed}" (letters, digits, _ and - only)`);
    slug = changed;
  }
  const extras: QueueExtras = {};
  for (const [k, v] of Object.entries(f)) if (!QUEUE_FIELDS.has(k) && !QUEUE_SECRETS.has(k)) extras[k] = v;
  const locale = strOrNull(f.locale)?.trim() || null;
  const localeOk = locale === null || (locale.length <= MAX_LOCALE_LENGTH && LOCALE.pattern.test(locale));
  if (!localeOk) {
    warnings.push(`queue ${id}: locale "${locale}" is no language code: searched in English, exported as it was`);
    extras.locale = f.locale;
  }
  return {
    id,
    title: str(f.title),
    slug,
    email_address: strOrNull(f.email_address),
    new_ticket_cc: strOrNull(f.new_ticket_cc),
    updated_ticket_cc: strOrNull(f.updated_ticket_cc),
    disabled_mail: [],
    escalate_days: num(f.escalate_days),
    // Upstream's per-queue permissions let every staff member into a public queue: so do ours.
    allow_public_submission: f.allow_public_submission === true,
    locale: localeOk ? locale : null,
    ...(Object.keys(extras).length ? { django: extras } : {}),
  };
}

function customFieldOf(o: DjangoObject, warnings: string[]): CustomFieldDefinition & { id: number } {
  const f = o.fields;
  const id = Number(o.pk);
  let data_type = str(f.data_type) as DataType;
  if (!DATA_TYPES.includes(data_type)) {
    warnings.push(`custom field ${str(f.name)}: data type "${data_type}" unknown, taken as varchar`);
    data_type = 'varchar';
  }
  return {
    id,
    name: str(f.name),
    key: customFieldKey(id),
    label: str(f.label),
    help_text: str(f.help_text),
    data_type,
    max_length: num(f.max_length),
    decimal_places: num(f.decimal_places),
    empty_selection_list: bool(f.empty_selection_list),
    // Upstream keeps the choices one per line.
    list_values: str(f.list_values)
      .split(/\r?\n/)
      .map((v) => v.trim())
      .filter(Boolean),
    required: bool(f.required),
    staff_only: bool(f.staff_only),
    ordering: num(f.ordering),
  };
}

/** Reads a dump into records and a report. `mediaHas` says whether an attachment's file is there. */
export function planImport(objects: DjangoObject[], mediaHas: (file: string) => boolean): ImportPlan {
  const report: ImportReport = { imported: {}, skipped: {}, warnings: [], unusablePasswords: [], tooLarge: [] };
  const warnings = report.warnings;
  const count = (model: string) => (report.imported[model] = (report.imported[model] ?? 0) + 1);
  const skip = (model: string, why: string) => {
    const entry = (report.skipped[model] ??= { count: 0, why });
    entry.count++;
  };
  const of = (model: string) => objects.filter((o) => o.model === model);
  for (const o of objects) {
    if ((IMPORTED_MODELS as readonly string[]).includes(o.model)) continue;
    skip(o.model, NOT_HERE[o.model] ?? 'unknown model: this product has no such records');
  }

  const queues = of('helpdesk.queue').map((o) => (count(o.model), queueOf(o, warnings)));
  const queueBySlug = new Map(of('helpdesk.queue').map((o) => [str(o.fields.slug), Number(o.pk)]));

  // Groups' permissions reach their members (Django's ModelBackend does the same).
  const groupGrants = new Map<string, string[]>();
  for (const g of of('auth.group')) {
    const grants = ((g.fields.permissions as unknown[]) ?? []).map(queueGrant).filter((s): s is string => !!s);
    groupGrants.set(str(g.pk), grants);
    groupGrants.set(str(g.fields.name), grants);
  }
  const byUsername = new Map(of('auth.user').map((o) => [str(o.fields.username), Number(o.pk)]));
  let unreadablePermissions = 0;
  const users = of('auth.user').map((o): User => {
    count(o.model);
    const f = o.fields;
    const { stored, unknown } = importedPasswordHash(str(f.password));
    if (unknown) report.unusablePasswords.push(`${str(f.username)} (${unknown})`);
    const permissions = (f.user_permissions as unknown[]) ?? [];
    unreadablePermissions += permissions.filter((p) => !Array.isArray(p)).length;
    const slugs = [
      ...permissions.map(queueGrant),
      ...((f.groups as unknown[]) ?? []).flatMap((g) => groupGrants.get(Array.isArray(g) ? str(g[0]) : str(g)) ?? []),
    ].filter((s): s is string => !!s);
    const queueIds = [...new Set(slugs.map((s) => queueBySlug.get(s)).filter((q): q is number => q !== undefined))];
    return {
      id: Number(o.pk),
      username: str(f.username),
      first_name: str(f.first_name),
      last_name: str(f.last_name),
      email: str(f.email),
      is_staff: bool(f.is_staff),
      is_superuser: bool(f.is_superuser),
      is_active: bool(f.is_active, true),
      password_hash: stored,
      date_joined: when(f.date_joined, `user ${str(f.username)}`, warnings) ?? '1970-01-01T00:00:00.000000Z',
      ...(queueIds.length ? { queues: queueIds.sort((a, b) => a - b) } : {}),
    };
  });
  if (unreadablePermissions)
    warnings.push(
      `${unreadablePermissions} user permissions dumped by id, not by name: dump with --natural-foreign ` +
        'to carry per-queue grants',
    );
  for (const u of report.unusablePasswords)
    warnings.push(`user ${u}: unknown hasher, imported with no usable password`);

  const customFields = of('helpdesk.customfield').map((o) => (count(o.model), customFieldOf(o, warnings)));
  const fieldKey = new Map(customFields.map((d) => [d.id, d.key]));

  const tickets = new Map<number, ImportedTicket>();
  for (const o of of('helpdesk.ticket')) {
    count(o.model);
    const f = o.fields;
    const id = Number(o.pk);
    if (f.kbitem != null) warnings.push(`ticket ${id}: its knowledge base item is not kept`);
    tickets.set(id, {
      ticket: {
        id,
        queue: Number(f.queue),
        title: str(f.title),
        description: strOrNull(f.description),
        resolution: strOrNull(f.resolution),
        submitter_email: strOrNull(f.submitter_email),
        assigned_to: userRef(f.assigned_to, byUsername),
        status: Number(f.status ?? 1),
        on_hold: bool(f.on_hold),
        priority: Number(f.priority ?? 3),
        due_date: when(f.due_date, `ticket ${id}`, warnings),
        merged_to: num(f.merged_to),
        secret_key: strOrNull(f.secret_key),
        created: when(f.created, `ticket ${id}`, warnings) ?? '1970-01-01T00:00:00.000000Z',
        modified: when(f.modified, `ticket ${id}`, warnings) ?? '1970-01-01T00:00:00.000000Z',
        last_escalation: when(f.last_escalation, `ticket ${id}`, warnings),
        custom: {},
      },
      followups: [],
      attachments: [],
    });
  }
  for (const o of of('helpdesk.ticketcustomfieldvalue')) {
    const t = tickets.get(Number(o.fields.ticket));
    const key = fieldKey.get(Number(o.fields.field));
    if (!t || !key) {
      skip(o.model, 'its ticket or field is not in the dump');
      continue;
    }
    count(o.model);
    t.ticket.custom[key] = o.fields.value == null ? null : str(o.fields.value);
  }

  const changes = new Map<number, TicketChange[]>();
  for (const o of of('helpdesk.ticketchange').sort((a, b) => Number(a.pk) - Number(b.pk))) {
    const f = o.fields;
    const list = changes.get(Number(f.followup)) ?? [];
    list.push({
      id: Number(o.pk),
      field: str(f.field),
      old_value: strOrNull(f.old_value),
      new_value: strOrNull(f.new_value),
    });
    changes.set(Number(f.followup), list);
  }
  const followupTicket = new Map<number, number>();
  for (const o of of('helpdesk.followup')) {
    const f = o.fields;
    const id = Number(o.pk);
    const t = tickets.get(Number(f.ticket));
    if (!t) {
      skip(o.model, 'its ticket is not in the dump');
      continue;
    }
    count(o.model);
    followupTicket.set(id, t.ticket.id);
    const made = changes.get(id);
    t.followups.push({
      id,
      ticket: t.ticket.id,
      user: userRef(f.user, byUsername),
      title: strOrNull(f.title),
      comment: strOrNull(f.comment),
      public: bool(f.public),
      new_status: num(f.new_status),
      time_spent: f.time_spent == null || f.time_spent === '' ? null : parseDuration(str(f.time_spent)),
      date: when(f.date, `followup ${id}`, warnings) ?? '1970-01-01T00:00:00.000000Z',
      message_id: strOrNull(f.message_id),
      ...(made ? { changes: made } : {}),
    });
  }
  for (const o of of('helpdesk.ticketchange')) {
    if (followupTicket.has(Number(o.fields.followup))) count(o.model);
    else skip(o.model, 'its followup is not in the dump');
  }
  for (const o of of('helpdesk.followupattachment')) {
    const f = o.fields;
    const id = Number(o.pk);
    const ticket = followupTicket.get(Number(f.followup));
    if (ticket === undefined) {
      skip(o.model, 'its followup is not in the dump');
      continue;
    }
    const file = str(f.file);
    if (!mediaHas(file)) {
      skip(o.model, 'its file is missing under --media');
      warnings.push(`attachment ${id}: file "${file}" is missing under --media`);
      continue;
    }
    count(o.model);
    tickets.get(ticket)!.attachments.push({
      id,
      ticket,
      followup: Number(f.followup),
      filename: str(f.filename) || file.split('/').pop()!,
      mime_type: str(f.mime_type) || 'application/octet-stream',
      size: Number(f.size ?? 0),
      object_key: '',
      file,
    });
  }

  keepLongTextWhole(
    [...tickets.values()].sort((a, b) => a.ticket.id - b.ticket.id),
    report,
  );

  const ccs: TicketCc[] = [];
  for (const o of of('helpdesk.ticketcc')) {
    const f = o.fields;
    if (!tickets.has(Number(f.ticket))) {
      skip(o.model, 'its ticket is not in the dump');
      continue;
    }
    count(o.model);
    const user = userRef(f.user, byUsername);
    ccs.push({
      id: Number(o.pk),
      ticket: Number(f.ticket),
      user,
      email: user === null ? strOrNull(f.email) : null,
      can_view: bool(f.can_view),
      can_update: bool(f.can_update),
    });
  }

  const usernameOf = new Map(users.map((u) => [u.id, u.username]));
  const tokens: ImportedToken[] = [];
  for (const o of of('authtoken.token')) {
    const key = str(o.pk);
    const user = Array.isArray(o.fields.user) ? str(o.fields.user[0]) : usernameOf.get(Number(o.fields.user));
    if (!user || !/^[0-9a-f]{40}$/i.test(key)) {
      skip(o.model, user ? 'not a 40-character key' : 'its user is not in the dump');
      continue;
    }
    count(o.model);
    tokens.push({ key, user, created: when(o.fields.created, 'token', warnings) ?? users[0]!.date_joined });
  }
  if (!of('authtoken.token').length)
    warnings.push('no authtoken.token in the dump: API tokens do not move (dump authtoken.token too)');

  return {
    users,
    queues,
    customFields,
    tickets: [...tickets.values()].sort((a, b) => a.ticket.id - b.ticket.id),
    ccs,
    tokens,
    report,
  };
}

/**
 * The highest of `ids`, 0 for none. Not `Math.max(...ids)`: a spread passes each id as an argument, and past some
 * 120,000 of them (a helpdesk's followups) the call overflows the stack.
 */
const maxId = (ids: Iterable<number>): number => {
  let max = 0;
  for (const id of ids) if (id > max) max = id;
  return max;
};

/** The highest id of each counter the import fills: the API's next ids continue above them. */
export function highestIds(plan: Pick<ImportPlan, 'tickets' | 'users' | 'queues' | 'ccs'>) {
  return {
    ticket: maxId(plan.tickets.map((t) => t.ticket.id)),
    followup: maxId(plan.tickets.flatMap((t) => t.followups.map((f) => f.id))),
    attachment: maxId(plan.tickets.flatMap((t) => t.attachments.map((a) => a.id))),
    user: maxId(plan.users.map((u) => u.id)),
    queue: maxId(plan.queues.map((q) => q.id)),
    ticket_cc: maxId(plan.ccs.map((c) => c.id)),
  };
}

// ---------------------------------------------------------------------------------------------
// Long text: upstream's text fields have no bound (a log pasted into a ticket), a record here must fit one
// DynamoDB item (400 KB). Before this, such a record's write failed, and every rerun stopped at the same record.

/**
 * The text a ticket's or a followup's record may take in all (a followup's: its title, comment and changes), as the
 * API bounds a ticket's (ticket.ts).
 */
const RECORD_TEXT_BYTES = MAX_TICKET_TEXT_BYTES;
/**
 * What a cut text keeps, in bytes of UTF-8: so at most 60,000 characters (within the API's 80,000 of a field), and a
 * ticket with both its description and resolution cut still far within RECORD_TEXT_BYTES.
 */
export const CUT_TEXT_HEAD_BYTES = 60_000;

const followupTextBytes = (f: Followup) =>
  utf8Bytes(f.title) +
  utf8Bytes(f.comment) +
  (f.changes ?? []).reduce((n, c) => n + utf8Bytes(c.field) + utf8Bytes(c.old_value) + utf8Bytes(c.new_value), 0);

/**
 * A record whose text is over RECORD_TEXT_BYTES keeps each of its long texts (over CUT_TEXT_HEAD_BYTES) whole as a
 * text attachment that the import makes, on the record's followup (a ticket's: on its first), and in the field the
 * text's head, with a line that names the file. Nothing is lost, and the import goes on. A record still too large
 * (its custom values), or a ticket with no followup to hold the file, is named in `report.tooLarge`. The files'
 * ids follow the dump's highest attachment id, in the order of the tickets and their records: a rerun makes the
 * same ones.
 */
function keepLongTextWhole(tickets: ImportedTicket[], report: ImportReport): void {
  let nextId = maxId(tickets.flatMap((t) => t.attachments.map((a) => a.id))) + 1;
  for (const t of tickets) {
    const first = t.followups.reduce<Followup | undefined>((a, f) => (a && a.id < f.id ? a : f), undefined);
    /** The head of `text` to keep in place of it, the whole of it filed on `followup` as `filename`. */
    const keep = (text: string, followup: Followup, filename: string, what: string): string => {
      const file: ImportedAttachment = {
        id: nextId++,
        ticket: t.ticket.id,
        followup: followup.id,
        filename,
        // The charset named: a text/plain without one is read as Windows-1252 by browsers, its € garbled.
        mime_type: 'text/plain; charset=utf-8',
        size: utf8Bytes(text),
        object_key: '',
        file: '',
        text,
      };
      t.attachments.push(file);
      report.warnings.push(
        `${what} takes ${file.size} bytes, more than a record holds: cut to its first ${CUT_TEXT_HEAD_BYTES} bytes, ` +
          `and kept whole as the attachment ${filename} (${file.id}) of followup ${followup.id}`,
      );
      return (
        `${utf8Head(text, CUT_TEXT_HEAD_BYTES)}\n\n[Cut at the import from django-helpdesk: the whole text ` +
        `(${file.size} bytes) is the attachment ${filename}.]`
      );
    };
    const long = (text: string | null): text is string => utf8Bytes(text) > CUT_TEXT_HEAD_BYTES;
    const ticket = t.ticket;
    if (ticketTextBytes(ticket) > RECORD_TEXT_BYTES) {
      if (!first) report.tooLarge.push(`ticket ${ticket.id} (its text is too long, and it has no followup to hold it)`);
      else
        for (const field of ['description', 'resolution'] as const) {
          const text = ticket[field];
          if (long(text))
            ticket[field] = keep(text, first, `${field}-ticket-${ticket.id}.txt`, `ticket ${ticket.id}'s ${field}`);
        }
      if (first && ticketTextBytes(ticket) > RECORD_TEXT_BYTES)
        report.tooLarge.push(`ticket ${ticket.id} (its custom values)`);
    }
    for (const f of t.followups) {
      if (followupTextBytes(f) <= RECORD_TEXT_BYTES) continue;
      if (long(f.comment)) f.comment = keep(f.comment, f, `comment-followup-${f.id}.txt`, `followup ${f.id}'s comment`);
      for (const c of f.changes ?? [])
        for (const side of ['old_value', 'new_value'] as const) {
          const text = c[side];
          if (long(text)) c[side] = keep(text, f, `change-${c.id}-${side}.txt`, `ticket change ${c.id}'s ${side}`);
        }
      if (followupTextBytes(f) > RECORD_TEXT_BYTES) report.tooLarge.push(`followup ${f.id}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Export: the records back into dumpdata's format (the models both sides have).

export interface ExportInput {
  users: User[];
  queues: ImportedQueue[];
  customFields: CustomFieldDefinition[];
  tickets: { ticket: Ticket; followups: Followup[]; attachments: Attachment[] }[];
  ccs: TicketCc[];
  /** Where each attachment's file goes under the media folder (the caller writes the bytes there). */
  fileOf: (a: Attachment) => string;
}

/** Stored date-times keep their microseconds: Django's loaddata reads six digits. */
const djangoTime = (stored: string | null | undefined) => stored ?? null;

/** The models in loaddata's order (a foreign key's target before it), natural keys for users' permissions. */
export function toDjango(input: ExportInput): DjangoObject[] {
  const out: DjangoObject[] = [];
  const slugOf = new Map(input.queues.map((q) => [q.id, q.slug]));
  for (const u of input.users) {
    out.push({
      model: 'auth.user',
      pk: u.id,
      fields: {
        password: exportedPasswordHash(u.password_hash),
        last_login: null,
        is_superuser: u.is_superuser,
        username: u.username,
        first_name: u.first_name,
        last_name: u.last_name,
        email: u.email,
        is_staff: u.is_staff,
        is_active: u.is_active,
        date_joined: djangoTime(u.date_joined),
        groups: [],
        user_permissions: (u.queues ?? [])
          .filter((q) => slugOf.has(q))
          .map((q) => [`${QUEUE_PERMISSION_PREFIX}${slugOf.get(q)}`, 'helpdesk', 'queue']),
      },
    });
  }
  for (const q of input.queues) {
    out.push({
      model: 'helpdesk.queue',
      pk: q.id,
      fields: {
        ...q.django,
        title: q.title,
        slug: q.slug,
        email_address: q.email_address,
        new_ticket_cc: q.new_ticket_cc ?? '',
        updated_ticket_cc: q.updated_ticket_cc ?? '',
        escalate_days: q.escalate_days,
        allow_public_submission: q.allow_public_submission,
        locale: q.locale ?? q.django?.locale ?? null,
        permission_name: `helpdesk.${QUEUE_PERMISSION_PREFIX}${q.slug}`,
      },
    });
  }
  const fieldIds = new Map<string, number>();
  let nextField = maxId(input.customFields.map((d) => idOfCustomFieldKey(d.key) ?? 0)) + 1;
  for (const d of input.customFields) {
    const id = idOfCustomFieldKey(d.key) ?? nextField++;
    fieldIds.set(d.key, id);
    out.push({
      model: 'helpdesk.customfield',
      pk: id,
      fields: {
        name: d.name,
        label: d.label,
        help_text: d.help_text,
        data_type: d.data_type,
        max_length: d.max_length,
        decimal_places: d.decimal_places,
        empty_selection_list: d.empty_selection_list,
        list_values: d.list_values.join('\n'),
        ordering: d.ordering,
        required: d.required,
        staff_only: d.staff_only,
      },
    });
  }
  const values: DjangoObject[] = [];
  const followups: DjangoObject[] = [];
  const changes: DjangoObject[] = [];
  const attachments: DjangoObject[] = [];
  for (const { ticket: t, followups: fs, attachments: as } of input.tickets) {
    out.push({
      model: 'helpdesk.ticket',
      pk: t.id,
      fields: {
        title: t.title,
        queue: t.queue,
        created: djangoTime(t.created),
        modified: djangoTime(t.modified),
        submitter_email: t.submitter_email,
        assigned_to: t.assigned_to,
        status: t.status,
        on_hold: t.on_hold,
        description: t.description,
        resolution: t.resolution,
        priority: t.priority,
        due_date: djangoTime(t.due_date),
        last_escalation: djangoTime(t.last_escalation),
        secret_key: t.secret_key,
        kbitem: null,
        merged_to: t.merged_to,
      },
    });
    for (const [key, value] of Object.entries(t.custom ?? {})) {
      const field = fieldIds.get(key);
      if (field !== undefined)
        values.push({ model: 'helpdesk.ticketcustomfieldvalue', pk: null, fields: { ticket: t.id, field, value } });
    }
    for (const f of fs) {
      followups.push({
        model: 'helpdesk.followup',
        pk: f.id,
        fields: {
          ticket: t.id,
          date: djangoTime(f.date),
          title: f.title,
          comment: f.comment,
          public: f.public,
          user: f.user,
          new_status: f.new_status,
          message_id: f.message_id,
          time_spent: f.time_spent == null ? null : formatDuration(f.time_spent),
        },
      });
      for (const c of f.changes ?? [])
        changes.push({
          model: 'helpdesk.ticketchange',
          pk: c.id,
          fields: { followup: f.id, field: c.field, old_value: c.old_value, new_value: c.new_value },
        });
    }
    for (const a of as)
      attachments.push({
        model: 'helpdesk.followupattachment',
        pk: a.id,
        fields: {
          followup: a.followup,
          file: input.fileOf(a),
          filename: a.filename,
          mime_type: a.mime_type,
          size: a.size,
        },
      });
  }
  // Values have no id of their own here: numbered in order, as loaddata needs a pk.
  values.forEach((v, i) => (v.pk = i + 1));
  const ccs = input.ccs.map((c): DjangoObject => ({
    model: 'helpdesk.ticketcc',
    pk: c.id,
    fields: { ticket: c.ticket, user: c.user, email: c.email, can_view: c.can_view, can_update: c.can_update },
  }));
  return [...out, ...values, ...followups, ...changes, ...attachments, ...ccs];
}

/**
 * `objects` as `JSON.stringify(objects, null, 2)` gives them, with a final line end, in pieces of an object each: an
 * installation's dump can be longer than V8's longest string (some 512 MB).
 */
export function* dumpdataText(objects: readonly DjangoObject[]): Generator<string> {
  if (!objects.length) {
    yield '[]\n';
    return;
  }
  yield '[\n';
  for (let i = 0; i < objects.length; i++)
    yield `${JSON.stringify(objects[i], null, 2).replace(/^/gm, '  ')}${i < objects.length - 1 ? ',' : ''}\n`;
  yield ']\n';
}
