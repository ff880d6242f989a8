import { describe, expect, it } from 'vitest';
import type { ParsedBody } from '../../shared/domain/body';
import { ValidationError } from '../../shared/domain/errors';
import { parseFollowupBody, planFollowup, type FollowupRefs } from '../../shared/domain/followup';
import type { UploadedFile } from '../../shared/domain/body';
import type { Ticket } from '../../shared/domain/records';
import { ticketRecord } from './fixtures';

const NOW = new Date('2030-01-02T03:04:05Z');

const ticket = (overrides: Partial<Ticket> = {}) => ticketRecord({ title: 'FU ticket', ...overrides });

const json = (data: Record<string, unknown>): ParsedBody => ({ kind: 'json', data, files: [] });
const file = (content: string, filename = 'notes.txt'): UploadedFile => ({
  field: 'attachments',
  filename,
  contentType: 'text/plain',
  data: Buffer.from(content),
});

function plan(data: Record<string, unknown>, t: Ticket = ticket(), userExists = true) {
  const refs: FollowupRefs = { ticket: t, userExists };
  return planFollowup(parseFollowupBody(json({ ticket: t.id, ...data })), refs, 7, NOW);
}

function errorsOf(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).fields;
  }
  throw new Error('expected a ValidationError');
}

describe('parseFollowupBody', () => {
  it('requires ticket, title and comment', () => {
    expect(parseFollowupBody(json({})).errors).toEqual({
      ticket: ['This field is required.'],
      title: ['This field is required.'],
      comment: ['This field is required.'],
    });
  });

  it('validates new_status and time_spent', () => {
    const { errors } = parseFollowupBody(
      json({ ticket: 1, title: 't', comment: 'c', new_status: 9, time_spent: 'abc' }),
    );
    expect(errors).toEqual({
      new_status: ['"9" is not a valid choice.'],
      time_spent: ['Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].'],
    });
  });

  it('keys empty files by position', () => {
    const body: ParsedBody = {
      kind: 'form',
      data: { ticket: '1', title: 't', comment: 'c' },
      files: [file('ok'), file('')],
    };
    expect(parseFollowupBody(body).errors).toEqual({ attachments: { '1': ['The submitted file is empty.'] } });
  });

  it('refuses attachments sent as data', () => {
    expect(parseFollowupBody(json({ ticket: 1, title: 't', comment: 'c', attachments: 'x' })).errors).toEqual({
      attachments: { '0': ['The submitted data was not a file. Check the encoding type on the form.'] },
    });
  });

  it('keeps the files', () => {
    const body: ParsedBody = {
      kind: 'form',
      data: { ticket: '1', title: 't', comment: 'c' },
      files: [file('a'), file('b', 'pixel.png')],
    };
    expect(parseFollowupBody(body).attachments.map((f) => f.filename)).toEqual(['notes.txt', 'pixel.png']);
  });
});

describe('planFollowup', () => {
  it('a plain followup', () => {
    const { followup, ticketChanges } = plan({
      title: 'Test ticket answer',
      comment: 'An answer',
      user: 3,
      public: true,
    });
    expect(followup).toEqual({
      ticket: 1,
      user: 7,
      title: 'Test ticket answer',
      comment: 'An answer',
      public: true,
      new_status: null,
      time_spent: null,
      date: '2030-01-02T03:04:05.000000Z',
      message_id: null,
    });
    expect(ticketChanges).toEqual({});
  });

  it('public defaults to false; time_spent is kept in microseconds', () => {
    const { followup } = plan({ title: 't', comment: 'c', time_spent: '01:30:00' });
    expect(followup.public).toBe(false);
    expect(followup.time_spent).toBe(5_400_000_000);
  });

  it('a null title becomes the ticket title', () => {
    expect(plan({ title: null, comment: 'c' }).followup.title).toBe('FU ticket');
  });

  it('a status change appends " and <Label>" and records new_status', () => {
    const { followup, ticketChanges } = plan({
      title: 'Resolving',
      comment: 'resolved now',
      public: true,
      new_status: 3,
    });
    expect(followup.title).toBe('Resolving and Resolved');
    expect(followup.new_status).toBe(3);
    expect(ticketChanges).toEqual({
      status: 3,
      resolution: 'resolved now',
      resolution_private: false,
      modified: '2030-01-02T03:04:05.000000Z',
    });
  });

  it('a null title with a status change gets the ticket title and the suffix', () => {
    expect(plan({ title: null, comment: 'c', new_status: 2 }).followup.title).toBe('FU ticket and Reopened');
  });

  it('an empty title with a status change becomes the label', () => {
    expect(plan({ title: '', comment: 'c', new_status: 4 }).followup.title).toBe('Closed');
    expect(plan({ title: '', comment: '', new_status: 5 }).followup.title).toBe('Duplicate');
  });

  it('an empty title becomes "Comment" with a comment, else "Updated"', () => {
    expect(plan({ title: '', comment: 'hello' }).followup.title).toBe('Comment');
    expect(plan({ title: '', comment: '' }).followup.title).toBe('Updated');
    expect(plan({ title: '', comment: null }).followup.title).toBe('Updated');
    expect(plan({ title: '   ', comment: '  ' }).followup.title).toBe('Updated');
  });

  it('an unchanged status is not a change', () => {
    const { followup, ticketChanges } = plan({ title: 'Still open', comment: 'c', new_status: 1 });
    expect(followup.new_status).toBeNull();
    expect(followup.title).toBe('Still open');
    expect(ticketChanges).toEqual({});
  });

  it('any status may follow any other', () => {
    expect(plan({ title: 't', comment: 'c', new_status: 2 }, ticket({ status: 4 })).ticketChanges.status).toBe(2);
  });

  describe('resolution copy', () => {
    it('resolving copies the comment', () => {
      expect(plan({ title: 't', comment: 'Fixed it', new_status: 3 }).ticketChanges.resolution).toBe('Fixed it');
    });

    it('closing copies the comment only when there is no resolution yet', () => {
      expect(plan({ title: 't', comment: 'bye', new_status: 4 }).ticketChanges.resolution).toBe('bye');
      const kept = plan({ title: 't', comment: '', new_status: 4 }, ticket({ status: 3, resolution: 'Fixed it' }));
      expect(kept.ticketChanges).toEqual({ status: 4, modified: '2030-01-02T03:04:05.000000Z' });
    });

    it('closing with an empty resolution string still keeps it ("" is not null)', () => {
      const kept = plan({ title: 't', comment: 'x', new_status: 4 }, ticket({ status: 1, resolution: '' }));
      expect('resolution' in kept.ticketChanges).toBe(false);
    });

    it('any followup on a Resolved ticket overwrites the resolution', () => {
      const { followup, ticketChanges } = plan(
        { title: 'note', comment: 'later note' },
        ticket({ status: 3, resolution: 'Fixed it' }),
      );
      expect(followup.new_status).toBeNull();
      expect(ticketChanges).toEqual({
        resolution: 'later note',
        resolution_private: true,
        modified: '2030-01-02T03:04:05.000000Z',
      });
    });

    it('any followup on a Closed ticket without resolution sets it', () => {
      expect(plan({ title: 'n', comment: 'c' }, ticket({ status: 4, resolution: null })).ticketChanges.resolution).toBe(
        'c',
      );
    });

    it('other statuses leave the resolution alone', () => {
      expect(plan({ title: 'n', comment: 'c', new_status: 2 }).ticketChanges).not.toHaveProperty('resolution');
      expect(plan({ title: 'n', comment: 'c', new_status: 5 }).ticketChanges).not.toHaveProperty('resolution');
    });
  });

  it('never renames the ticket', () => {
    expect(plan({ title: 'Renamed?', comment: 'c', new_status: 3 }).ticketChanges).not.toHaveProperty('title');
  });

  it('reports a missing ticket and user as "Invalid pk"', () => {
    const draft = parseFollowupBody(json({ ticket: 999, user: 42, title: 't', comment: 'c' }));
    expect(errorsOf(() => planFollowup(draft, { ticket: undefined, userExists: false }, 7, NOW))).toEqual({
      ticket: ['Invalid pk "999" - object does not exist.'],
      user: ['Invalid pk "42" - object does not exist.'],
    });
  });

  it('reports field errors and file errors together, in field order', () => {
    const body: ParsedBody = { kind: 'form', data: { ticket: '1', comment: 'c', new_status: '9' }, files: [file('')] };
    const errors = errorsOf(() =>
      planFollowup(parseFollowupBody(body), { ticket: ticket(), userExists: true }, 7, NOW),
    );
    expect(Object.keys(errors)).toEqual(['title', 'new_status', 'attachments']);
  });
});
