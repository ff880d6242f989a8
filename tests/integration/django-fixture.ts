/**
 * A django-helpdesk `dumpdata --natural-foreign` installation made for the import tests (issue 37), with
 * every field and edge the import must carry: merged tickets, private followups, time spent, Message-IDs,
 * ticket changes, custom field values of every type, CCs by user and by address, a user per password
 * hasher (Django's encodings made with node:crypto as Django makes them), per-queue grants by natural key,
 * a DRF token, attachments with files (one missing), and models this product does not have.
 *
 * `base` offsets every id, so that several installations can go into one helpdesk.
 */
import { pbkdf2Sync, scryptSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PASSWORD = 'imported-pass-123';

const b64 = (b: Buffer) => b.toString('base64');
/** Django's PBKDF2PasswordHasher / PBKDF2SHA1PasswordHasher and ScryptPasswordHasher encodings. */
const SALTS = ['saltsaltsalt0001', 'saltsaltsalt0002', 'saltsaltsalt0003'] as const;
export const HASHES = {
  pbkdf2_sha256: `pbkdf2_sha256$1000$${SALTS[0]}$${b64(pbkdf2Sync(PASSWORD, SALTS[0], 1000, 32, 'sha256'))}`,
  pbkdf2_sha1: `pbkdf2_sha1$1000$${SALTS[1]}$${b64(pbkdf2Sync(PASSWORD, SALTS[1], 1000, 20, 'sha1'))}`,
  scrypt: `scrypt$16384$${SALTS[2]}$8$1$${b64(scryptSync(PASSWORD, SALTS[2], 64, { N: 16384, r: 8, p: 1 }))}`,
  argon2: 'argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdHNhbHQ$0123456789abcdefghijklmnopqrstuvwxyzABCDE',
  bcrypt_sha256: 'bcrypt_sha256$$2b$12$abcdefghijklmnopqrstuu5Bq2P7yRQ4YqkG2e6gZ0QpQ0vYlQWGm',
};

export const CUSTOM_VALUES: Record<string, [type: string, stored: string, wire: unknown]> = {
  c_varchar: ['varchar', 'short text', 'short text'],
  c_text: ['text', 'a longer\ntext', 'a longer\ntext'],
  c_integer: ['integer', '42', 42],
  c_decimal: ['decimal', '3.14', '3.14'],
  c_list: ['list', 'Green', 'Green'],
  c_boolean: ['boolean', 'True', true],
  c_date: ['date', '2024-02-29', '2024-02-29'],
  c_time: ['time', '10:30:00', '10:30:00'],
  c_datetime: ['datetime', '2024-02-29 10:30:00', '2024-02-29 10:30'],
  c_email: ['email', 'who@example.com', 'who@example.com'],
  c_url: ['url', 'https://example.com/x', 'https://example.com/x'],
  c_ipaddress: ['ipaddress', '10.0.0.1', '10.0.0.1'],
  c_slug: ['slug', 'a-slug', 'a-slug'],
};

export interface Installation {
  objects: { model: string; pk: unknown; fields: Record<string, unknown> }[];
  ids: {
    queue: number;
    badSlugQueue: number;
    staff: number;
    ticket: number;
    merged: number;
    openingFollowup: number;
    privateFollowup: number;
    attachment: number;
    missingAttachment: number;
  };
  slug: string;
  messageId: string;
  token: string;
  users: Record<keyof typeof HASHES, string>;
}

/** The installation's dump and its media files under `media`. */
export function djangoInstallation(base: number, media: string): Installation {
  const q = base + 1;
  const slug = `imp${base}`;
  const staff = base + 1;
  const t = base + 1;
  const users = Object.fromEntries(Object.keys(HASHES).map((h) => [h, `${h}-${base}`])) as Installation['users'];
  const token = (base.toString(16).padStart(8, '0') + 'a'.repeat(32)).slice(0, 40);
  const messageId = `<imported-${base}@old-helpdesk.example.com>`;
  const when = (minute: number) => `2023-05-0${1 + (minute % 8)}T10:${String(minute % 60).padStart(2, '0')}:00.123Z`;
  const objects: Installation['objects'] = [];
  const add = (model: string, pk: unknown, fields: Record<string, unknown>) => objects.push({ model, pk, fields });

  add('helpdesk.queue', q, {
    title: `Imported ${base}`,
    slug,
    email_address: `${slug}@localhost`,
    locale: 'de',
    allow_public_submission: true,
    allow_email_submission: false,
    escalate_days: 3,
    new_ticket_cc: 'boss@example.com',
    updated_ticket_cc: '',
    enable_notifications_on_email_events: false,
    email_box_type: 'imap',
    email_box_pass: 'secret-not-kept',
    permission_name: `helpdesk.queue_access_${slug}`,
    default_owner: null,
  });
  add('helpdesk.queue', q + 1, {
    title: 'Odd slug',
    slug: `odd.slug${base}`,
    email_address: null,
    escalate_days: null,
  });
  add('auth.group', null, { name: `agents-${base}`, permissions: [[`queue_access_${slug}`, 'helpdesk', 'queue']] });
  Object.entries(HASHES).forEach(([hasher, password], i) =>
    add('auth.user', staff + i, {
      password,
      last_login: null,
      is_superuser: false,
      username: users[hasher as keyof typeof HASHES],
      first_name: `First${i}`,
      last_name: `Last${i}`,
      email: `${hasher}-${base}@example.com`,
      is_staff: true,
      is_active: true,
      date_joined: when(i),
      // The first by its own permission, the second through its group.
      groups: i === 1 ? [[`agents-${base}`]] : [],
      user_permissions: i === 0 ? [[`queue_access_${slug}`, 'helpdesk', 'queue']] : [],
    }),
  );
  add('auth.user', staff + 9, {
    password: '!unusableXYZ',
    username: `gone-${base}`,
    first_name: '',
    last_name: '',
    email: '',
    is_staff: false,
    is_superuser: false,
    is_active: false,
    date_joined: when(9),
    groups: [],
    user_permissions: [],
  });
  add('authtoken.token', token, { user: [users.pbkdf2_sha256], created: when(3) });

  Object.entries(CUSTOM_VALUES).forEach(([name, [type]], i) =>
    add('helpdesk.customfield', base + 1 + i, {
      name: `${name}_${base}`,
      label: `Label ${name}`,
      help_text: '',
      data_type: type,
      max_length: type === 'varchar' ? 100 : type === 'decimal' ? 8 : null,
      decimal_places: type === 'decimal' ? 2 : null,
      empty_selection_list: false,
      list_values: type === 'list' ? 'Red\nGreen\nBlue' : '',
      ordering: i,
      required: false,
      staff_only: i === 0,
    }),
  );

  // The ticket with everything, and a duplicate merged into it.
  add('helpdesk.ticket', t, {
    title: 'Printer on fire',
    queue: q,
    created: when(1),
    modified: when(7),
    submitter_email: `reporter-${base}@example.com`,
    assigned_to: [users.pbkdf2_sha256],
    status: 3,
    on_hold: true,
    description: 'It burns.',
    resolution: 'Extinguished.',
    priority: 2,
    due_date: '2023-06-01T00:00:00Z',
    last_escalation: null,
    secret_key: `secret-${base}`,
    kbitem: null,
    merged_to: null,
  });
  add('helpdesk.ticket', t + 1, {
    title: 'Printer on fire (again)',
    queue: q,
    created: when(2),
    modified: when(3),
    submitter_email: `reporter-${base}@example.com`,
    assigned_to: null,
    status: 5,
    on_hold: false,
    description: 'Same thing.',
    resolution: null,
    priority: 3,
    due_date: null,
    secret_key: `secret2-${base}`,
    merged_to: t,
  });
  Object.keys(CUSTOM_VALUES).forEach((name, i) =>
    add('helpdesk.ticketcustomfieldvalue', base + 1 + i, {
      ticket: t,
      field: base + 1 + i,
      value: CUSTOM_VALUES[name]![1],
    }),
  );
  const f = base + 1;
  add('helpdesk.followup', f, {
    ticket: t,
    date: when(1),
    title: 'Ticket Opened',
    comment: 'It burns.',
    public: true,
    user: null,
    new_status: null,
    message_id: messageId,
    time_spent: null,
  });
  add('helpdesk.followup', f + 1, {
    ticket: t,
    date: when(5),
    title: 'Internal note',
    comment: 'Staff only: the fire brigade was called.',
    public: false,
    user: [users.pbkdf2_sha256],
    new_status: null,
    message_id: null,
    time_spent: '1:30:00',
  });
  add('helpdesk.followup', f + 2, {
    ticket: t,
    date: when(7),
    title: 'Resolved',
    comment: 'Extinguished.',
    public: true,
    user: [users.pbkdf2_sha256],
    new_status: 3,
    message_id: null,
    time_spent: '2 00:00:05.000001',
  });
  add('helpdesk.followup', f + 3, {
    ticket: t + 1,
    date: when(2),
    title: 'Ticket Opened',
    comment: 'Same thing.',
    public: true,
    user: null,
    new_status: null,
    message_id: null,
    time_spent: null,
  });
  add('helpdesk.ticketchange', base + 1, {
    followup: f + 2,
    field: 'Status',
    old_value: 'Open',
    new_value: 'Resolved',
  });
  add('helpdesk.ticketchange', base + 2, { followup: f + 2, field: 'Priority', old_value: '3', new_value: '2' });
  const a = base + 1;
  const file = `helpdesk/attachments/${slug}-${t}/${f + 2}/report.txt`;
  mkdirSync(join(media, file, '..'), { recursive: true });
  writeFileSync(join(media, file), `The report of ${base}.\n`);
  add('helpdesk.followupattachment', a, {
    followup: f + 2,
    file,
    filename: 'report.txt',
    mime_type: 'text/plain',
    size: `The report of ${base}.\n`.length,
  });
  add('helpdesk.followupattachment', a + 1, {
    followup: f + 2,
    file: `helpdesk/attachments/${slug}-${t}/${f + 2}/lost.pdf`,
    filename: 'lost.pdf',
    mime_type: 'application/pdf',
    size: 1000,
  });
  add('helpdesk.ticketcc', base + 1, {
    ticket: t,
    user: [users.pbkdf2_sha1],
    email: '',
    can_view: true,
    can_update: false,
  });
  add('helpdesk.ticketcc', base + 2, {
    ticket: t,
    user: null,
    email: `watcher-${base}@example.com`,
    can_view: true,
    can_update: true,
  });
  // What this product does not have.
  add('helpdesk.kbcategory', base + 1, { title: 'KB', slug: `kb${base}`, description: '' });
  add('helpdesk.savedsearch', base + 1, { user: [users.scrypt], title: 'Mine', shared: false, query: 'e30=' });
  add('helpdesk.usersettings', base + 1, { user: [users.scrypt], settings_pickled: '' });

  return {
    objects,
    ids: {
      queue: q,
      badSlugQueue: q + 1,
      staff,
      ticket: t,
      merged: t + 1,
      openingFollowup: f,
      privateFollowup: f + 1,
      attachment: a,
      missingAttachment: a + 1,
    },
    slug,
    messageId,
    token,
    users,
  };
}
