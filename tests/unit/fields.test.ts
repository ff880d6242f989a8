import { describe, expect, it } from 'vitest';
import {
  MESSAGES,
  booleanField,
  choiceField,
  dateTimeField,
  durationField,
  emailField,
  idField,
  orderErrors,
  parseBoolean,
  pythonStr,
  pythonType,
  textField,
  validateFields,
  type Field,
} from '../../shared/domain/fields';

/** Runs one field on one raw value: `{ ok: value }` or `{ errors: [...] }`. */
function run<T>(field: Field<T>, raw: unknown): { ok: T } | { errors: string[] } {
  const result = field.schema.safeParse(raw);
  return result.success ? { ok: result.data } : { errors: result.error.issues.map((i) => i.message) };
}

describe('messages', () => {
  it('match upstream wording', () => {
    expect(MESSAGES.required).toBe('This field is required.');
    expect(MESSAGES.null).toBe('This field may not be null.');
    expect(MESSAGES.blank).toBe('This field may not be blank.');
    expect(MESSAGES.notString).toBe('Not a valid string.');
    expect(MESSAGES.nul).toBe('Null characters are not allowed.');
    expect(MESSAGES.maxLength(200)).toBe('Ensure this field has no more than 200 characters.');
    expect(MESSAGES.email).toBe('Enter a valid email address.');
    expect(MESSAGES.choice('9')).toBe('"9" is not a valid choice.');
    expect(MESSAGES.pkType('str')).toBe('Incorrect type. Expected pk value, received str.');
    expect(MESSAGES.pkMissing(999)).toBe('Invalid pk "999" - object does not exist.');
    expect(MESSAGES.notAFile).toBe('The submitted data was not a file. Check the encoding type on the form.');
    expect(MESSAGES.emptyFile).toBe('The submitted file is empty.');
    expect(MESSAGES.duration).toBe(
      'Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].',
    );
  });
});

describe('pythonType / pythonStr', () => {
  it('names JSON values as Python does', () => {
    expect(pythonType(true)).toBe('bool');
    expect(pythonType('x')).toBe('str');
    expect(pythonType(1)).toBe('int');
    expect(pythonType(1.5)).toBe('float');
    expect(pythonType([])).toBe('list');
    expect(pythonType({})).toBe('dict');
    expect(pythonType(null)).toBe('NoneType');
  });
  it('stringifies as str() does', () => {
    expect(pythonStr(true)).toBe('True');
    expect(pythonStr(false)).toBe('False');
    expect(pythonStr(null)).toBe('None');
    expect(pythonStr('abc')).toBe('abc');
    expect(pythonStr(42)).toBe('42');
  });
});

describe('textField', () => {
  const title = textField({ required: true, maxLength: 200 });

  it('trims surrounding whitespace', () => {
    expect(run(title, '  hello world \n')).toEqual({ ok: 'hello world' });
  });

  it('turns numbers into strings', () => {
    expect(run(title, 42)).toEqual({ ok: '42' });
    expect(run(title, 1.5)).toEqual({ ok: '1.5' });
  });

  it('rejects booleans, arrays and objects with "Not a valid string."', () => {
    for (const raw of [true, false, ['a'], { a: 1 }]) {
      expect(run(title, raw)).toEqual({ errors: ['Not a valid string.'] });
    }
  });

  it('rejects NUL characters', () => {
    expect(run(title, 'a\0b')).toEqual({ errors: ['Null characters are not allowed.'] });
  });

  it('rejects blank and whitespace-only values unless blank is allowed', () => {
    expect(run(title, '')).toEqual({ errors: ['This field may not be blank.'] });
    expect(run(title, '   \t ')).toEqual({ errors: ['This field may not be blank.'] });
    const blankOk = textField({ allowBlank: true });
    expect(run(blankOk, '')).toEqual({ ok: '' });
    expect(run(blankOk, '   ')).toEqual({ ok: '' });
  });

  it('rejects null unless nullable', () => {
    expect(run(title, null)).toEqual({ errors: ['This field may not be null.'] });
    expect(run(textField({ nullable: true }), null)).toEqual({ ok: null });
  });

  it('counts characters (code points), not bytes or UTF-16 units, for max length', () => {
    expect(run(title, 'a'.repeat(200))).toEqual({ ok: 'a'.repeat(200) });
    expect(run(title, 'a'.repeat(201))).toEqual({ errors: ['Ensure this field has no more than 200 characters.'] });
    expect(run(title, 'é'.repeat(200))).toEqual({ ok: 'é'.repeat(200) });
    expect(run(title, '😀'.repeat(200))).toEqual({ ok: '😀'.repeat(200) });
    expect(run(title, '😀'.repeat(201))).toEqual({ errors: ['Ensure this field has no more than 200 characters.'] });
  });

  it('checks the length after trimming', () => {
    expect(run(title, `  ${'a'.repeat(200)}  `)).toEqual({ ok: 'a'.repeat(200) });
  });

  it('runs the extra check on the trimmed value', () => {
    const f = textField({ check: (v) => (v === 'bad' ? 'no' : undefined) });
    expect(run(f, ' bad ')).toEqual({ errors: ['no'] });
    expect(run(f, ' good ')).toEqual({ ok: 'good' });
  });

  it('records its options', () => {
    expect(title).toMatchObject({ kind: 'text', nullable: false, required: true });
    expect(textField({ nullable: true })).toMatchObject({ nullable: true, required: false });
  });
});

describe('emailField', () => {
  const email = emailField({ required: true });
  it('accepts and trims a valid address', () => {
    expect(run(email, ' plain@example.com ')).toEqual({ ok: 'plain@example.com' });
  });
  it('rejects an invalid address', () => {
    expect(run(email, 'not-an-email')).toEqual({ errors: ['Enter a valid email address.'] });
  });
  it('blank and null messages', () => {
    expect(run(email, '')).toEqual({ errors: ['This field may not be blank.'] });
    expect(run(email, null)).toEqual({ errors: ['This field may not be null.'] });
  });
  it('caps at 254 characters', () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`; // 259
    expect(run(email, long)).toEqual({ errors: ['Ensure this field has no more than 254 characters.'] });
  });
});

describe('choiceField', () => {
  const status = choiceField([1, 2, 3, 4, 5]);

  it('accepts 2 and "2"', () => {
    expect(run(status, 2)).toEqual({ ok: 2 });
    expect(run(status, '2')).toEqual({ ok: 2 });
  });

  it('rejects values outside the choices with the input in the message', () => {
    expect(run(status, 9)).toEqual({ errors: ['"9" is not a valid choice.'] });
    expect(run(status, '9')).toEqual({ errors: ['"9" is not a valid choice.'] });
    expect(run(status, 0)).toEqual({ errors: ['"0" is not a valid choice.'] });
    expect(run(status, 42)).toEqual({ errors: ['"42" is not a valid choice.'] });
    expect(run(status, 'abc')).toEqual({ errors: ['"abc" is not a valid choice.'] });
    expect(run(status, 2.5)).toEqual({ errors: ['"2.5" is not a valid choice.'] });
  });

  it('rejects booleans as Python writes them', () => {
    expect(run(status, true)).toEqual({ errors: ['"True" is not a valid choice.'] });
  });

  it('does not accept spellings other than the choice itself ("02", " 2")', () => {
    expect(run(status, '02')).toEqual({ errors: ['"02" is not a valid choice.'] });
    expect(run(status, ' 2')).toEqual({ errors: ['" 2" is not a valid choice.'] });
  });

  it('null: error unless nullable', () => {
    expect(run(status, null)).toEqual({ errors: ['This field may not be null.'] });
    expect(run(choiceField([1, 2], { nullable: true }), null)).toEqual({ ok: null });
  });
});

describe('idField', () => {
  const queue = idField({ required: true });

  it('accepts 1 and "1"', () => {
    expect(run(queue, 1)).toEqual({ ok: 1 });
    expect(run(queue, '1')).toEqual({ ok: 1 });
  });

  it('rejects other types with "Incorrect type"', () => {
    expect(run(queue, 'abc')).toEqual({ errors: ['Incorrect type. Expected pk value, received str.'] });
    expect(run(queue, true)).toEqual({ errors: ['Incorrect type. Expected pk value, received bool.'] });
    expect(run(queue, [1])).toEqual({ errors: ['Incorrect type. Expected pk value, received list.'] });
    expect(run(queue, { id: 1 })).toEqual({ errors: ['Incorrect type. Expected pk value, received dict.'] });
  });

  it('null: error unless nullable', () => {
    expect(run(queue, null)).toEqual({ errors: ['This field may not be null.'] });
    expect(run(idField({ nullable: true }), null)).toEqual({ ok: null });
  });
});

describe('booleanField', () => {
  const flag = booleanField();
  it('accepts DRF spellings', () => {
    for (const raw of [true, 1, 'true', 'True', 'TRUE', 't', 'y', 'yes', 'on', '1'])
      expect(run(flag, raw)).toEqual({ ok: true });
    for (const raw of [false, 0, 'false', 'False', 'f', 'n', 'no', 'off', '0'])
      expect(run(flag, raw)).toEqual({ ok: false });
  });
  it('rejects others', () => {
    expect(run(flag, 'maybe')).toEqual({ errors: ['Must be a valid boolean.'] });
    expect(run(flag, 2)).toEqual({ errors: ['Must be a valid boolean.'] });
    expect(run(flag, null)).toEqual({ errors: ['This field may not be null.'] });
  });
  it('parseBoolean returns undefined for unknown spellings', () => {
    expect(parseBoolean('nope')).toBeUndefined();
    expect(parseBoolean({})).toBeUndefined();
  });
});

describe('dateTimeField', () => {
  const due = dateTimeField({ nullable: true });
  const message =
    'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';

  it('parses to the stored UTC form', () => {
    expect(run(due, '2030-05-01T10:00:00+02:00')).toEqual({ ok: '2030-05-01T08:00:00.000000Z' });
    expect(run(due, '2030-05-01')).toEqual({ ok: '2030-05-01T00:00:00.000000Z' });
  });

  it('rejects non-strings and bad formats', () => {
    expect(run(due, 'tomorrow')).toEqual({ errors: [message] });
    expect(run(due, 20300501)).toEqual({ errors: [message] });
    expect(run(due, true)).toEqual({ errors: [message] });
  });

  it('null: allowed when nullable', () => {
    expect(run(due, null)).toEqual({ ok: null });
    expect(run(dateTimeField(), null)).toEqual({ errors: ['This field may not be null.'] });
  });
});

describe('durationField', () => {
  const spent = durationField();
  it('parses strings and seconds as numbers', () => {
    expect(run(spent, '01:30:00')).toEqual({ ok: 5_400_000_000 });
    expect(run(spent, 90)).toEqual({ ok: 90_000_000 });
    expect(run(spent, 1.5)).toEqual({ ok: 1_500_000 });
    expect(run(spent, null)).toEqual({ ok: null });
  });
  it('rejects bad values with the duration message', () => {
    const errors = [MESSAGES.duration];
    expect(run(spent, 'abc')).toEqual({ errors });
    expect(run(spent, true)).toEqual({ errors });
    expect(run(spent, [])).toEqual({ errors });
  });
});

describe('validateFields', () => {
  const fields = {
    queue: idField({ required: true }),
    title: textField({ required: true, maxLength: 200 }),
    description: textField({ allowBlank: true, nullable: true }),
    status: choiceField([1, 2, 3]),
    assigned_to: idField({ nullable: true }),
    on_hold: booleanField(),
  };

  it('collects every error at once, in field order', () => {
    const { values, errors } = validateFields(
      fields,
      { on_hold: 'x', status: 9, title: '', queue: 'abc' },
      'create',
      'json',
    );
    expect(values).toEqual({});
    expect(Object.keys(errors)).toEqual(['queue', 'title', 'status', 'on_hold']);
    expect(errors).toEqual({
      queue: ['Incorrect type. Expected pk value, received str.'],
      title: ['This field may not be blank.'],
      status: ['"9" is not a valid choice.'],
      on_hold: ['Must be a valid boolean.'],
    });
  });

  it('reports required fields on create and replace, not on partial updates', () => {
    expect(validateFields(fields, {}, 'create', 'json').errors).toEqual({
      queue: ['This field is required.'],
      title: ['This field is required.'],
    });
    expect(validateFields(fields, {}, 'replace', 'json').errors).toEqual({
      queue: ['This field is required.'],
      title: ['This field is required.'],
    });
    expect(validateFields(fields, {}, 'partial', 'json')).toEqual({ values: {}, errors: {} });
  });

  it('JSON: only keys that were sent are returned; absent booleans stay absent', () => {
    const { values, errors } = validateFields(fields, { queue: 1, title: 'T', unknown: 'x', id: 7 }, 'create', 'json');
    expect(errors).toEqual({});
    expect(values).toEqual({ queue: 1, title: 'T' });
  });

  it('JSON: an empty string is not "not sent"', () => {
    const { errors } = validateFields(fields, { queue: 1, title: 'T', status: '' }, 'create', 'json');
    expect(errors).toEqual({ status: ['"" is not a valid choice.'] });
  });

  it('form: empty optional non-text field counts as not sent; nullable becomes null; text keeps ""', () => {
    const data = { queue: '1', title: 'T', status: '', assigned_to: '', description: '' };
    const { values, errors } = validateFields(fields, data, 'create', 'form');
    expect(errors).toEqual({});
    expect(values).toEqual({ queue: 1, title: 'T', description: '', assigned_to: null, on_hold: false });
    expect('status' in values).toBe(false);
  });

  it('form: an absent boolean is false on create and replace, absent on partial', () => {
    expect(validateFields(fields, { queue: '1', title: 'T' }, 'create', 'form').values.on_hold).toBe(false);
    expect(validateFields(fields, { queue: '1', title: 'T' }, 'replace', 'form').values.on_hold).toBe(false);
    const partial = validateFields(fields, { title: 'T' }, 'partial', 'form');
    expect(partial.values).toEqual({ title: 'T' });
    expect(validateFields(fields, { on_hold: 'on' }, 'partial', 'form').values).toEqual({ on_hold: true });
  });

  it("form: an empty required id field is null, as DRF's related fields read it", () => {
    expect(validateFields(fields, { queue: '', title: 'T' }, 'create', 'form').errors).toEqual({
      queue: ['This field may not be null.'],
    });
    expect(validateFields(fields, { queue: '' }, 'partial', 'form').errors).toEqual({
      queue: ['This field may not be null.'],
    });
  });

  it('form: the last of repeated values wins', () => {
    const { values } = validateFields(fields, { queue: ['1', '2'], title: ['a', 'b'] }, 'create', 'form');
    expect(values).toMatchObject({ queue: 2, title: 'b' });
  });

  it('form: a blank required text field is blank, not missing', () => {
    expect(validateFields(fields, { queue: '1', title: '' }, 'create', 'form').errors).toEqual({
      title: ['This field may not be blank.'],
    });
  });
});

describe('orderErrors', () => {
  it('puts keys in the given order, unknown keys last', () => {
    const sorted = orderErrors({ z: [1], body: [2], queue: [3], title: [4] }, ['queue', 'title', 'body']);
    expect(Object.keys(sorted)).toEqual(['queue', 'title', 'body', 'z']);
  });
});
