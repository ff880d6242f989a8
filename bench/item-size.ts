/**
 * An item's size as DynamoDB bills and limits it (400 KB at most): each attribute's name in UTF-8
 * bytes plus its value's (a string's UTF-8 bytes; a number's about one byte per two significant
 * digits plus one; a boolean or null one byte; a map or list 3 bytes plus one per element and its
 * elements'), as the developer guide's "Item sizes and formats" counts them.
 */
import { trimEndChars, trimStartChars } from '../shared/domain/linear-text';

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = trimEndChars(trimStartChars(String(value).replace(/^-/, '').replace('.', ''), '0'), '0');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + valueSize(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueSize(v), 0);
  return 3 + Object.entries(value as Record<string, unknown>).reduce((n, [k, v]) => n + 1 + utf8(k) + valueSize(v), 0);
}

export function itemSize(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((n, [name, value]) => n + utf8(name) + valueSize(value), 0);
}
