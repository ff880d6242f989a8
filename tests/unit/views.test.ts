import { describe, expect, it } from 'vitest';
import type { Attachment, Followup, Ticket } from '../../shared/domain/records';
import { attachmentUrl, attachmentView, followupView, ticketView } from '../../shared/domain/views';
import { userView } from '../../shared/domain/user';
import { ticketRecord } from './fixtures';
import { ATTACHMENT_KEYS, FOLLOWUP_KEYS, TICKET_KEYS } from '../wire-shapes';

const BASE = 'http://HOST';

const ticket: Ticket = ticketRecord({
  id: 3,
  title: 'Test Ticket API with attachment',
  description: 'desc',
  submitter_email: 'test@mail.com',
  priority: 2,
  due_date: '2030-01-02T03:04:05.000000Z',
  secret_key: 'secret',
  created: '2026-11-21T23:17:08.525441Z',
  modified: '2026-11-21T23:17:08.525441Z',
});

const followup = (id: number, date: string, extra: Partial<Followup> = {}): Followup => ({
  id,
  ticket: 3,
  user: 1,
  title: 'Ticket Opened',
  comment: 'desc',
  public: true,
  new_status: null,
  time_spent: null,
  date,
  message_id: null,
  ...extra,
});

const attachment = (id: number, followupId: number, filename: string): Attachment => ({
  id,
  ticket: 3,
  followup: followupId,
  filename,
  mime_type: 'text/plain',
  size: 17,
  object_key: `k/${id}`,
});

describe('ticketView', () => {
  it('has upstream keys in order, wire date-times and no secrets', () => {
    const view = ticketView(
      BASE,
      {
        ticket,
        followups: [
          followup(5, '2026-11-21T23:17:09.000000Z'),
          followup(4, '2026-11-21T23:17:08.525441Z', { time_spent: 5_400_000_000 }),
        ],
        attachments: [attachment(2, 4, 'z.txt'), attachment(1, 4, 'a.txt'), attachment(3, 5, 'm.txt')],
        mergedFrom: [],
      },
      [],
    );
    expect(Object.keys(view)).toEqual(TICKET_KEYS);
    expect(view.due_date).toBe('2030-01-02T03:04:05Z');
    expect(view.followup_set.map((f) => f.id)).toEqual([4, 5]);
    expect(Object.keys(view.followup_set[0]!)).toEqual(FOLLOWUP_KEYS);
    expect(view.followup_set[0]!.date).toBe('2026-11-21T23:17:08.525441Z');
    expect(view.followup_set[1]!.date).toBe('2026-11-21T23:17:09Z');
    expect(view.followup_set[0]!.time_spent).toBe('01:30:00');
    expect(view.followup_set[1]!.time_spent).toBeNull();
    expect(view.followup_set[0]!.followupattachment_set.map((a) => a.filename)).toEqual(['a.txt', 'z.txt']);
    expect(view.followup_set[1]!.followupattachment_set.map((a) => a.id)).toEqual([3]);
    expect(JSON.stringify(view)).not.toContain('secret');
    expect(JSON.stringify(view)).not.toContain('object_key');
  });

  it('a null due_date stays null', () => {
    expect(
      ticketView(BASE, { ticket: { ...ticket, due_date: null }, followups: [], attachments: [], mergedFrom: [] }, [])
        .due_date,
    ).toBeNull();
  });
});

describe('attachmentView', () => {
  it('has upstream keys in order and an API URL', () => {
    const view = attachmentView(BASE, attachment(1, 3, 'hello.txt'));
    expect(view).toEqual({
      id: 1,
      followup: 3,
      file: 'http://HOST/api/tickets/3/attachments/1',
      filename: 'hello.txt',
      mime_type: 'text/plain',
      size: 17,
    });
    expect(Object.keys(view)).toEqual(ATTACHMENT_KEYS);
    expect(attachmentUrl(BASE, { ticket: 9, id: 8 })).toBe('http://HOST/api/tickets/9/attachments/8');
  });
});

describe('followupView', () => {
  it('keeps only its own attachments', () => {
    const view = followupView(BASE, followup(4, '2030-01-01T00:00:00.000000Z'), [
      attachment(1, 4, 'a'),
      attachment(2, 5, 'b'),
    ]);
    expect(view.followupattachment_set.map((a) => a.id)).toEqual([1]);
    expect(view.date).toBe('2030-01-01T00:00:00Z');
  });
});

describe('userView', () => {
  it('has the four non-secret fields in order', () => {
    const view = userView({
      first_name: 'New',
      last_name: 'User',
      username: 'newuser',
      email: 'new@example.com',
      password_hash: 'x',
    } as never);
    expect(view).toEqual({ first_name: 'New', last_name: 'User', username: 'newuser', email: 'new@example.com' });
    expect(Object.keys(view)).toEqual(['first_name', 'last_name', 'username', 'email']);
  });
});
