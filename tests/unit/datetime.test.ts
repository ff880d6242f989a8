import { describe, expect, it } from 'vitest';
import { DATE_TIME_FORMAT_MESSAGE, parseDateTime, storedDateTime, wireDateTime } from '../../shared/domain/datetime';
import { formatDuration, parseDuration } from '../../shared/domain/fields';

describe('parseDateTime', () => {
  it('reads a UTC value with Z', () => {
    expect(parseDateTime('2030-01-02T03:04:05Z')).toBe('2030-01-02T03:04:05.000000Z');
    expect(parseDateTime('2030-01-02T03:04:05z')).toBe('2030-01-02T03:04:05.000000Z');
  });

  it('converts offsets to UTC', () => {
    expect(parseDateTime('2030-05-01T10:00:00+02:00')).toBe('2030-05-01T08:00:00.000000Z');
    expect(parseDateTime('2030-05-01T10:00:00-0530')).toBe('2030-05-01T15:30:00.000000Z');
    expect(parseDateTime('2030-05-01T01:00:00+05')).toBe('2030-04-30T20:00:00.000000Z');
    expect(parseDateTime('2030-12-31T23:30:00-01:00')).toBe('2031-01-01T00:30:00.000000Z');
  });

  it('reads a naive value as UTC', () => {
    expect(parseDateTime('2030-05-01T10:00:00')).toBe('2030-05-01T10:00:00.000000Z');
    expect(parseDateTime('2030-05-01 10:00')).toBe('2030-05-01T10:00:00.000000Z');
  });

  it('reads a date alone as midnight UTC', () => {
    expect(parseDateTime('2030-05-01')).toBe('2030-05-01T00:00:00.000000Z');
  });

  it('keeps microseconds, padding shorter fractions and dropping extra digits', () => {
    expect(parseDateTime('2026-11-21T23:17:07.990707Z')).toBe('2026-11-21T23:17:07.990707Z');
    expect(parseDateTime('2026-11-21T23:17:07.5Z')).toBe('2026-11-21T23:17:07.500000Z');
    expect(parseDateTime('2026-11-21T23:17:07.1234567Z')).toBe('2026-11-21T23:17:07.123456Z');
    expect(parseDateTime('2026-11-21T23:17:07,25+01:00')).toBe('2026-11-21T22:17:07.250000Z');
  });

  it('trims surrounding whitespace', () => {
    expect(parseDateTime('  2030-05-01  ')).toBe('2030-05-01T00:00:00.000000Z');
  });

  it('rejects invalid dates and times', () => {
    for (const bad of [
      '2022-13-01',
      '2022-00-10',
      '2022-02-30',
      '2023-02-29',
      '2022-04-31',
      '2022-01-00',
      '0000-01-01',
      '2022-01-01T24:00:00',
      '2022-01-01T10:60:00',
      '2022-01-01T10:00:60',
      '2022-01-01T10:00:00+24:00',
      '2022-01-01T10:00:00+02:60',
    ]) {
      expect(parseDateTime(bad), bad).toBeNull();
    }
    expect(parseDateTime('2024-02-29')).toBe('2024-02-29T00:00:00.000000Z');
  });

  it('rejects other formats', () => {
    for (const bad of [
      'tomorrow',
      '',
      '2022-1-1',
      '22-01-01',
      '2022/01/01',
      '2022-01-01T10',
      '2022-01-01T10:00:00 UTC',
      '1700000000',
    ]) {
      expect(parseDateTime(bad), bad).toBeNull();
    }
  });

  it('keeps years before 100 (no two-digit-year mapping)', () => {
    expect(parseDateTime('0050-03-04')).toBe('0050-03-04T00:00:00.000000Z');
    expect(parseDateTime('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000000Z');
  });

  it("has upstream's message", () => {
    expect(DATE_TIME_FORMAT_MESSAGE).toBe(
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
    );
  });
});

describe('storedDateTime / wireDateTime', () => {
  it('stores six fractional digits', () => {
    expect(storedDateTime(new Date('2026-11-21T23:17:07.990Z'))).toBe('2026-11-21T23:17:07.990000Z');
    expect(storedDateTime(new Date('2030-01-02T03:04:05Z'))).toBe('2030-01-02T03:04:05.000000Z');
  });

  it('drops the fraction on the wire only when it is zero', () => {
    expect(wireDateTime('2030-01-02T03:04:05.000000Z')).toBe('2030-01-02T03:04:05Z');
    expect(wireDateTime('2026-11-21T23:17:07.990707Z')).toBe('2026-11-21T23:17:07.990707Z');
    expect(wireDateTime('2026-11-21T23:17:07.000001Z')).toBe('2026-11-21T23:17:07.000001Z');
    expect(wireDateTime('2026-11-21T23:17:07.100000Z')).toBe('2026-11-21T23:17:07.100000Z');
  });

  it('passes null through', () => {
    expect(wireDateTime(null)).toBeNull();
    expect(wireDateTime(undefined)).toBeNull();
  });

  it('round-trips a parsed value', () => {
    expect(wireDateTime(parseDateTime('2030-05-01T10:00:00+02:00'))).toBe('2030-05-01T08:00:00Z');
  });
});

describe('durations', () => {
  const S = 1_000_000;

  it('parses Django formats', () => {
    expect(parseDuration('01:30:00')).toBe(5400 * S);
    expect(parseDuration('1 02:00:00')).toBe(26 * 3600 * S);
    expect(parseDuration('2 days, 00:00:01')).toBe((2 * 86400 + 1) * S);
    expect(parseDuration('1 day, 00:00:00')).toBe(86400 * S);
    expect(parseDuration('30')).toBe(30 * S);
    expect(parseDuration('01:30')).toBe(90 * S);
    expect(parseDuration('00:00:01.5')).toBe(1.5 * S);
    expect(parseDuration('00:00:00.000001')).toBe(1);
    expect(parseDuration('-1 01:00:00')).toBe(-23 * 3600 * S);
  });

  it('parses ISO 8601 durations', () => {
    expect(parseDuration('PT1H30M')).toBe(5400 * S);
    expect(parseDuration('P1DT2H')).toBe(26 * 3600 * S);
    expect(parseDuration('PT0.5S')).toBe(0.5 * S);
    expect(parseDuration('P2D')).toBe(2 * 86400 * S);
  });

  it('rejects others', () => {
    for (const bad of ['abc', '', '1:2:3:4', 'P', 'PT', '1 hour', '00:00:00.1234567x']) {
      expect(parseDuration(bad), bad).toBeNull();
    }
  });

  it('formats as Django does', () => {
    expect(formatDuration(0)).toBe('00:00:00');
    expect(formatDuration(5400 * S)).toBe('01:30:00');
    expect(formatDuration(26 * 3600 * S)).toBe('1 02:00:00');
    expect(formatDuration(90 * S + 500_000)).toBe('00:01:30.500000');
    expect(formatDuration(1)).toBe('00:00:00.000001');
    expect(formatDuration(3 * 86400 * S)).toBe('3 00:00:00');
  });

  it('formats negative durations as Python does (only the days are negative)', () => {
    expect(formatDuration(-23 * 3600 * S)).toBe('-1 01:00:00');
    expect(formatDuration(-1)).toBe('-1 23:59:59.999999');
    expect(formatDuration(-86400 * S)).toBe('-1 00:00:00');
    expect(formatDuration(parseDuration('-1 01:00:00')!)).toBe('-1 01:00:00');
  });

  it('round-trips', () => {
    for (const text of ['01:30:00', '1 02:00:00', '00:00:01.250000']) {
      expect(formatDuration(parseDuration(text)!)).toBe(text);
    }
  });
});
