import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/domain/errors';
import { parseStatusFilter } from '../../shared/domain/status-filter';

function errorOf(raw: string): unknown {
  try {
    parseStatusFilter(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).status).toBe(400);
    return (error as ValidationError).body;
  }
  throw new Error('expected a ValidationError');
}

describe('parseStatusFilter', () => {
  it('absent or empty means no filter', () => {
    expect(parseStatusFilter(undefined)).toBeUndefined();
    expect(parseStatusFilter('')).toBeUndefined();
    expect(parseStatusFilter('  ')).toBeUndefined();
  });

  it('takes ids', () => {
    expect(parseStatusFilter('3')).toEqual(new Set([3]));
    expect(parseStatusFilter('1,3')).toEqual(new Set([1, 3]));
    expect(parseStatusFilter(' 1 , 5 ')).toEqual(new Set([1, 5]));
  });

  it('takes names in any case', () => {
    expect(parseStatusFilter('Open')).toEqual(new Set([1]));
    expect(parseStatusFilter('reopened,RESOLVED,cLoSeD,duplicate')).toEqual(new Set([2, 3, 4, 5]));
    expect(parseStatusFilter('open,3')).toEqual(new Set([1, 3]));
  });

  it('an unknown token is a 400 keyed status', () => {
    expect(errorOf('Pending')).toEqual({ status: ['"Pending" is not a valid choice.'] });
    expect(errorOf('1,Pending')).toEqual({ status: ['"Pending" is not a valid choice.'] });
    expect(errorOf('6')).toEqual({ status: ['"6" is not a valid choice.'] });
    expect(errorOf('0')).toEqual({ status: ['"0" is not a valid choice.'] });
  });
});
