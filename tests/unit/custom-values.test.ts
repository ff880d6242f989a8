import { describe, expect, it } from 'vitest';
import { parseCustomValue, renderCustomValue, type CustomFieldDefinition } from '../../shared/domain/custom-fields';

const integer = { name: 'n', data_type: 'integer' } as CustomFieldDefinition;

describe('integer custom values', () => {
  it('are stored within the safe integers, which a JSON number holds exactly', () => {
    expect(parseCustomValue(integer, Number.MAX_SAFE_INTEGER)).toEqual({ value: '9007199254740991' });
    expect(parseCustomValue(integer, 2 ** 53)).toEqual({
      error: 'Ensure this value is less than or equal to 9007199254740991.',
    });
    expect(parseCustomValue(integer, `-${'9'.repeat(30)}`)).toEqual({
      error: 'Ensure this value is greater than or equal to -9007199254740991.',
    });
  });

  it('a larger one stored before (imported from upstream) is given as its exact digits, not a rounded number', () => {
    expect(renderCustomValue(integer, '42')).toBe(42);
    expect(renderCustomValue(integer, '100000000000000000001')).toBe('100000000000000000001');
    expect(renderCustomValue(integer, '')).toBeNull();
  });
});
