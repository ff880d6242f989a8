/**
 * The DynamoDB client's own unmarshalling (shared/aws/dynamodb.ts `unmarshallItem`, a faster path for
 * the common kinds) against the library it stands in for (@aws-sdk/util-dynamodb's `unmarshall`), on
 * items as they come off the wire: any change on either side that makes them differ fails here.
 */
import fc from 'fast-check';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { unmarshallItem } from '../../shared/aws/dynamodb';

type Wire = Record<string, unknown>;

/** Both results, or both errors' messages. */
function outcome(convert: (item: Wire) => unknown, item: Wire): unknown {
  try {
    return { value: convert(item) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const library = (item: Wire) => unmarshall(item as Parameters<typeof unmarshall>[0]);
/**
 * A value spelled out for comparison: each kind (Set, BigInt, Uint8Array, -0), value and property order, whatever
 * the property names (an own `constructor` confuses deep equality).
 */
function spelled(value: unknown): unknown {
  if (typeof value === 'bigint') return { bigint: String(value) };
  if (typeof value === 'number') return { number: Object.is(value, -0) ? '-0' : String(value) };
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Set) return { set: [...value].map(spelled) };
  if (value instanceof Uint8Array) return { bytes: [...value], kind: value.constructor.name };
  if (Array.isArray(value)) return { list: value.map(spelled) };
  return {
    prototype: Object.getPrototypeOf(value) === Object.prototype,
    entries: Object.entries(value).map(([k, v]) => [k, spelled(v)]),
  };
}

function expectSame(item: Wire): void {
  expect(spelled(outcome(unmarshallItem, item))).toEqual(spelled(outcome(library, item)));
}

/**
 * Attribute names, with those an object treats specially (inherited names, integer-like keys' order). Not
 * `__proto__`: both set the result's prototype from it (no name of this table is one), which no equality compares.
 */
const name = fc.oneof(
  fc.string().filter((s) => s !== '__proto__'),
  fc.constantFrom('constructor', 'toString', '0', '10', '-1', '1e3'),
);
/** Number strings as DynamoDB sends them, past the safe integers and with more digits than a double holds. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.bigInt({ min: -(10n ** 38n), max: 10n ** 38n }).map(String),
  fc.constantFrom('9007199254740991', '9007199254740992', '-9007199254740993', '1E+3', '0.1', '-0', '1e-130'),
);
const { value: wireValue } = fc.letrec<{ value: Wire }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ S: fc.string() }),
    fc.record({ N: numberText }),
    fc.record({ BOOL: fc.boolean() }),
    fc.constant({ NULL: true }),
    fc.record({ B: fc.uint8Array() }),
    fc.record({ SS: fc.uniqueArray(fc.string(), { minLength: 1 }) }),
    fc.record({ NS: fc.uniqueArray(numberText, { minLength: 1 }) }),
    fc.record({ BS: fc.array(fc.uint8Array(), { minLength: 1 }) }),
    fc.record({ L: fc.array(tie('value'), { maxLength: 4 }) }),
    fc.record({ M: fc.dictionary(name, tie('value'), { maxKeys: 4 }) }),
  ),
}));
const wireItem = fc.dictionary(name, wireValue, { maxKeys: 8 });

describe("the client's unmarshalling", () => {
  it('gives what the library gives, for every kind of value, nested, and every number', () => {
    fc.assert(
      fc.property(wireItem, (item) => {
        expectSame(item);
      }),
      { numRuns: 2_000 },
    );
  });

  it('gives what the library gives for items the library marshalled, as a ticket page holds them', () => {
    const ticket = {
      PK: 'TICKET#000000000123',
      id: 123,
      title: 'Printer jammed',
      resolution: null,
      on_hold: false,
      custom: { cf1: 'a', cf2: 2, tags: new Set(['x', 'y']), big: 2n ** 60n },
      followups: [{ id: 1, public: true, file: new Uint8Array([1, 2, 3]) }],
    };
    const wire = marshall(ticket) as Wire;
    expectSame(wire);
    expect(unmarshallItem(wire)).toStrictEqual(ticket);
  });

  it('refuses what the library refuses, with its message', () => {
    for (const item of [{ a: { X: '1' } }, { a: {} }, { a: { N: 'twelve' } }, { a: { M: { b: { Q: true } } } }]) {
      expectSame(item);
    }
    expect(() => unmarshallItem({ a: { X: '1' } })).toThrow('Unsupported type passed: X');
  });
});
