import { describe, expect, it } from 'vitest';
import type { ParsedBody } from '../../shared/domain/body';
import { ValidationError } from '../../shared/domain/errors';
import type { UploadedFile } from '../../shared/domain/body';
import type { Ticket, UserSummary } from '../../shared/domain/records';
import {
  MAX_TICKET_RECORD_TEXT_BYTES,
  MAX_TICKET_TEXT_BYTES,
  TICKET_ERROR_ORDER,
  checkTicketSize,
  displayName,
  parseTicketBody,
  planTicketCreation,
  planTicketUpdate,
  referencedIds,
  ticketTextBytes,
  type References,
} from '../../shared/domain/ticket';
import { ticketRecord } from './fixtures';

const NOW = new Date('2030-01-02T03:04:05.678Z');

const admin: UserSummary = {
  id: 1,
  username: 'admin',
  first_name: '',
  last_name: '',
  email: '',
  is_active: true,
  is_staff: true,
  is_superuser: true,
};
const jane: UserSummary = {
  id: 2,
  username: 'jane',
  first_name: 'Jane',
  last_name: 'Doe',
  email: 'jane@example.com',
  is_active: true,
  is_staff: false,
  is_superuser: false,
};
const gone: UserSummary = {
  id: 3,
  username: 'gone',
  first_name: 'Old',
  last_name: 'User',
  email: '',
  is_active: false,
  is_staff: false,
  is_superuser: false,
};

const existingTicket = (id: number): Ticket => ticketRecord({ id, title: `T${id}` });

const refs: References = {
  queues: new Set([1]),
  users: new Map([admin, jane, gone].map((u) => [u.id, u])),
  tickets: new Map([[5, existingTicket(5)]]),
};

const json = (data: Record<string, unknown>): ParsedBody => ({ kind: 'json', data, files: [] });
const form = (data: Record<string, unknown>, files: UploadedFile[] = []): ParsedBody => ({ kind: 'form', data, files });
const file = (field: string, content = 'hello', filename = 'hello.txt'): UploadedFile => ({
  field,
  filename,
  contentType: 'text/plain',
  data: Buffer.from(content),
});

const valid = { queue: 1, title: 'Second', description: 'desc 2', submitter_email: 'plain@example.com' };

function create(body: ParsedBody) {
  return planTicketCreation(parseTicketBody(body, 'create', []), refs, 1, NOW);
}

function errorsOf(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).status).toBe(400);
    return (error as ValidationError).fields;
  }
  throw new Error('expected a ValidationError');
}

describe('parseTicketBody', () => {
  it('{} lists the four required fields in order', () => {
    expect(parseTicketBody(json({}), 'create', []).errors).toEqual({
      queue: ['This field is required.'],
      title: ['This field is required.'],
      description: ['This field is required.'],
      submitter_email: ['This field is required.'],
    });
  });

  it('PUT requires the same fields; PATCH requires nothing', () => {
    expect(Object.keys(parseTicketBody(json({ title: 'only title' }), 'replace', []).errors)).toEqual([
      'queue',
      'description',
      'submitter_email',
    ]);
    expect(parseTicketBody(json({ title: 'only title' }), 'partial', []).errors).toEqual({});
  });

  it('a JSON attachment is not a file', () => {
    expect(parseTicketBody(json({ ...valid, attachment: 'x' }), 'create', []).errors).toEqual({
      attachment: ['The submitted data was not a file. Check the encoding type on the form.'],
    });
  });

  it('keeps one attachment; refuses two and an empty one', () => {
    const one = parseTicketBody(form({ ...valid, queue: '1' }, [file('attachment')]), 'create', []);
    expect(one.errors).toEqual({});
    expect(one.attachment?.filename).toBe('hello.txt');
    const two = parseTicketBody(form({ ...valid, queue: '1' }, [file('attachment'), file('attachment')]), 'create', []);
    expect(Object.keys(two.errors)).toEqual(['attachment']);
    expect(two.attachment).toBeUndefined();
    const empty = parseTicketBody(form({ ...valid, queue: '1' }, [file('attachment', '')]), 'create', []);
    expect(empty.errors).toEqual({ attachment: ['The submitted file is empty.'] });
  });

  it('ignores files under other names', () => {
    const draft = parseTicketBody(form({ ...valid, queue: '1' }, [file('other')]), 'create', []);
    expect(draft.errors).toEqual({});
    expect(draft.attachment).toBeUndefined();
  });

  it('an empty form attachment value counts as not sent', () => {
    expect(parseTicketBody(form({ ...valid, queue: '1', attachment: '' }), 'create', []).errors).toEqual({});
  });
});

describe('referencedIds', () => {
  it('lists the ids that were sent', () => {
    expect(referencedIds({ queue: 1, assigned_to: 2, merged_to: 5 })).toEqual({
      queues: [1],
      users: [2],
      tickets: [5],
    });
    expect(referencedIds({ queue: 1, assigned_to: null })).toEqual({ queues: [1], users: [], tickets: [] });
  });
});

describe('planTicketCreation', () => {
  it('forces status 1 and ignores resolution, on_hold and merged_to', () => {
    const { ticket } = create(
      json({
        ...valid,
        priority: 2,
        status: 3,
        on_hold: true,
        resolution: 'r',
        merged_to: 5,
        due_date: '2030-01-02T03:04:05Z',
      }),
    );
    expect(ticket).toMatchObject({
      queue: 1,
      title: 'Second',
      description: 'desc 2',
      resolution: null,
      submitter_email: 'plain@example.com',
      assigned_to: null,
      status: 1,
      on_hold: false,
      priority: 2,
      due_date: '2030-01-02T03:04:05.000000Z',
      merged_to: null,
      created: '2030-01-02T03:04:05.678000Z',
      modified: '2030-01-02T03:04:05.678000Z',
    });
    expect(ticket.secret_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('defaults priority to 3', () => {
    expect(create(json(valid)).ticket.priority).toBe(3);
  });

  it('makes the opening followup "Ticket Opened"', () => {
    const { opening } = create(json(valid));
    expect(opening).toEqual({
      user: 1,
      title: 'Ticket Opened',
      comment: 'desc 2',
      public: true,
      new_status: null,
      time_spent: null,
      date: '2030-01-02T03:04:05.678000Z',
      message_id: null,
    });
  });

  it('names the assignee by full name, else username', () => {
    expect(create(json({ ...valid, assigned_to: 2 })).opening.title).toBe('Ticket Opened & Assigned to Jane Doe');
    const withAdmin = create(json({ ...valid, assigned_to: 1 }));
    expect(withAdmin.opening.title).toBe('Ticket Opened & Assigned to admin');
    expect(withAdmin.ticket.assigned_to).toBe(1);
    expect(displayName({ username: 'u', first_name: 'Only', last_name: '' })).toBe('Only');
    expect(displayName({ username: 'u', first_name: '', last_name: 'Last' })).toBe('Last');
  });

  it('validates status and merged_to before ignoring them', () => {
    expect(errorsOf(() => create(json({ ...valid, status: 42 })))).toEqual({ status: ['"42" is not a valid choice.'] });
    expect(errorsOf(() => create(json({ ...valid, merged_to: 999 })))).toEqual({
      merged_to: ['Invalid pk "999" - object does not exist.'],
    });
  });

  it('reports unknown references as "Invalid pk"', () => {
    expect(errorsOf(() => create(json({ ...valid, queue: 999, assigned_to: 999 })))).toEqual({
      queue: ['Invalid pk "999" - object does not exist.'],
      assigned_to: ['Invalid pk "999" - object does not exist.'],
    });
  });

  it('reports field and reference errors together in field order', () => {
    const errors = errorsOf(() =>
      create(
        json({ queue: 999, title: '', description: 'x', submitter_email: 'not-an-email', priority: 9, status: 42 }),
      ),
    );
    expect(errors).toEqual({
      queue: ['Invalid pk "999" - object does not exist.'],
      title: ['This field may not be blank.'],
      submitter_email: ['Enter a valid email address.'],
      status: ['"42" is not a valid choice.'],
      priority: ['"9" is not a valid choice.'],
    });
    expect(Object.keys(errors)).toEqual(['queue', 'title', 'submitter_email', 'status', 'priority']);
  });

  it('stage 2: an empty or null description gives a "body" error', () => {
    expect(errorsOf(() => create(json({ ...valid, description: '' })))).toEqual({ body: ['This field is required.'] });
    expect(errorsOf(() => create(json({ ...valid, description: null })))).toEqual({
      body: ['This field is required.'],
    });
  });

  it('stage 2 runs only when stage 1 passed', () => {
    expect(errorsOf(() => create(json({ ...valid, description: '', title: '' })))).toEqual({
      title: ['This field may not be blank.'],
    });
  });

  it('stage 2: an inactive assignee is not an available choice', () => {
    expect(errorsOf(() => create(json({ ...valid, assigned_to: 3 })))).toEqual({
      assigned_to: ['Select a valid choice. 3 is not one of the available choices.'],
    });
  });

  it('other field errors', () => {
    expect(errorsOf(() => create(json({ ...valid, queue: 'abc' })))).toEqual({
      queue: ['Incorrect type. Expected pk value, received str.'],
    });
    expect(errorsOf(() => create(json({ ...valid, queue: null })))).toEqual({ queue: ['This field may not be null.'] });
    expect(errorsOf(() => create(json({ ...valid, title: 'x'.repeat(201) })))).toEqual({
      title: ['Ensure this field has no more than 200 characters.'],
    });
    expect(errorsOf(() => create(json({ ...valid, submitter_email: '' })))).toEqual({
      submitter_email: ['This field may not be blank.'],
    });
    expect(errorsOf(() => create(json({ ...valid, submitter_email: null })))).toEqual({
      submitter_email: ['This field may not be null.'],
    });
    expect(errorsOf(() => create(json({ ...valid, priority: null })))).toEqual({
      priority: ['This field may not be null.'],
    });
    expect(errorsOf(() => create(json({ ...valid, due_date: 'tomorrow' })))).toEqual({
      due_date: [
        'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      ],
    });
  });

  it('accepts a form body with string values', () => {
    const { ticket } = create(
      form({
        queue: '1',
        title: 'F',
        description: 'd',
        submitter_email: 'f@example.com',
        priority: '2',
        assigned_to: '',
      }),
    );
    expect(ticket).toMatchObject({ queue: 1, priority: 2, assigned_to: null, status: 1, on_hold: false });
  });

  it('keeps due_date dates as midnight UTC', () => {
    expect(create(json({ ...valid, due_date: '2030-05-01' })).ticket.due_date).toBe('2030-05-01T00:00:00.000000Z');
  });
});

describe('planTicketUpdate', () => {
  it('returns only the fields sent, plus modified', () => {
    const changes = planTicketUpdate(
      parseTicketBody(json({ priority: 1, on_hold: true }), 'partial', []),
      refs,
      NOW,
      existingTicket(9),
    );
    expect(changes).toEqual({ priority: 1, on_hold: true, modified: '2030-01-02T03:04:05.678000Z', custom: {} });
  });

  it('may set status, resolution and merged_to freely', () => {
    const changes = planTicketUpdate(
      parseTicketBody(json({ status: 4, resolution: '', merged_to: 5 }), 'partial', []),
      refs,
      NOW,
      existingTicket(9),
    );
    expect(changes).toMatchObject({ status: 4, resolution: '', merged_to: 5 });
  });

  it('a form PUT without on_hold sets it to false', () => {
    const body = form({ queue: '1', title: 'T', description: 'd', submitter_email: 'a@example.com' });
    expect(planTicketUpdate(parseTicketBody(body, 'replace', []), refs, NOW, existingTicket(9)).on_hold).toBe(false);
  });

  it('checks references', () => {
    expect(
      errorsOf(() =>
        planTicketUpdate(parseTicketBody(json({ assigned_to: 99 }), 'partial', []), refs, NOW, existingTicket(9)),
      ),
    ).toEqual({
      assigned_to: ['Invalid pk "99" - object does not exist.'],
    });
  });
});

describe('TICKET_ERROR_ORDER', () => {
  it('is the serializer order, then attachment and body', () => {
    expect(TICKET_ERROR_ORDER).toEqual([
      'queue',
      'title',
      'description',
      'resolution',
      'submitter_email',
      'assigned_to',
      'status',
      'on_hold',
      'priority',
      'due_date',
      'merged_to',
      'attachment',
      'body',
    ]);
  });
});

describe('size limits: every ticket fits one stored record', () => {
  const LONG = 80_000;
  it(`description and resolution take at most ${LONG} characters`, () => {
    expect(errorsOf(() => create(json({ ...valid, description: 'x'.repeat(LONG + 1) })))).toEqual({
      description: [`Ensure this field has no more than ${LONG} characters.`],
    });
    expect(create(json({ ...valid, description: 'x'.repeat(LONG) })).ticket.description).toHaveLength(LONG);
    const body = parseTicketBody(json({ resolution: 'x'.repeat(LONG + 1) }), 'partial', []);
    expect(errorsOf(() => planTicketUpdate(body, refs, NOW, existingTicket(9)))).toEqual({
      resolution: [`Ensure this field has no more than ${LONG} characters.`],
    });
  });

  it(`the text fields together take at most ${MAX_TICKET_TEXT_BYTES} bytes of UTF-8`, () => {
    const wide = '\u00e9'.repeat(LONG); // 160,000 bytes, within each field's own limit
    const current = ticketRecord({ id: 9, description: wide });
    const body = parseTicketBody(json({ resolution: wide }), 'partial', []);
    expect(errorsOf(() => planTicketUpdate(body, refs, NOW, current))).toEqual({
      non_field_errors: [
        `The ticket's text fields together take ${ticketTextBytes({ ...current, resolution: wide })} bytes (UTF-8); ` +
          `at most ${MAX_TICKET_TEXT_BYTES} can be stored.`,
      ],
    });
    // Custom values count, with their keys, including values of fields deleted since.
    const custom = { [`k${'0'.repeat(35)}`]: 'x'.repeat(200_000) };
    expect(ticketTextBytes({ ...current, custom })).toBe(ticketTextBytes(current) + 36 + 200_000);
    expect(() => checkTicketSize({ ...current, custom })).toThrow(ValidationError);
    expect(() => checkTicketSize({ ...current, resolution: 'x'.repeat(LONG) })).not.toThrow();
  });

  it(`with the opening followup its record holds, at most ${MAX_TICKET_RECORD_TEXT_BYTES} bytes in all`, () => {
    // At a create the opening followup's comment is the description: 2 x 240,000 bytes of `€` was a 500.
    const euros = '\u20ac'.repeat(LONG);
    const size = 'Second'.length + 3 * LONG + valid.submitter_email.length;
    const opening = 'Ticket Opened'.length + 3 * LONG;
    expect(errorsOf(() => create(json({ ...valid, description: euros })))).toEqual({
      non_field_errors: [
        `The ticket's text fields take ${size} bytes (UTF-8), and its opening followup's, which the ticket's record ` +
          `holds until that followup is first edited, ${opening}: ${size + opening} in all; at most ` +
          `${MAX_TICKET_RECORD_TEXT_BYTES} can be stored.`,
      ],
    });
    const wide = '\u00e9'.repeat(LONG); // 160,000 bytes twice: it fits
    expect(create(json({ ...valid, description: wide })).opening.comment).toBe(wide);
    // An update counts the opening the record holds, not one written out.
    const current = ticketRecord({ id: 9, description: wide });
    const body = parseTicketBody(json({ description: euros }), 'partial', []);
    const held = { title: 'Ticket Opened', comment: wide };
    expect(errorsOf(() => planTicketUpdate(body, refs, NOW, current, held))).toHaveProperty('non_field_errors');
    expect(planTicketUpdate(body, refs, NOW, current).description).toBe(euros);
  });
});
