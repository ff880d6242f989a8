/**
 * What the local runtime keeps across restarts in its data directory (infra/local/kept-files.ts): the stream's
 * positions (infra/local/stream-positions.ts), written whole and renamed into place, one write at a time.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keptWriter, readKept, writeKept } from '../../infra/local/kept-files';
import {
  appliedUpTo,
  compareSequences,
  loadStreamPositions,
  readTimeOf,
  saveStreamPositions,
  withRead,
  type ShardPosition,
} from '../../infra/local/stream-positions';

const dirs: string[] = [];
const newFile = (name = 'kept.json') => {
  const dir = mkdtempSync(join(tmpdir(), 'helpdesk-kept-'));
  dirs.push(dir);
  return join(dir, name);
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const ARN = 'arn:aws:dynamodb:ddblocal:000000000000:table/helpdesk/stream/2026-11-29T23:07:06.365';

describe('a kept file', () => {
  it('is read back as written, owner-only, with no draft left beside it; absent, it reads as undefined', async () => {
    const file = newFile();
    expect(readKept(file)).toBeUndefined();
    await writeKept(file, { a: [1, 2] });
    await writeKept(file, { b: 'second' });
    expect(readKept(file)).toEqual({ b: 'second' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(file, '..'))).toEqual(['kept.json']);
  });

  it('takes the place of a draft that a crashed process left, leaving nothing beside it', async () => {
    const file = newFile();
    writeFileSync(`${file}.draft`, '{"half": ');
    await writeKept(file, { whole: true });
    expect(readKept(file)).toEqual({ whole: true });
    expect(readdirSync(join(file, '..'))).toEqual(['kept.json']);
  });

  it('is written one write at a time; requests made while a write waits to begin share it', async () => {
    const order: string[] = [];
    let writes = 0;
    let release!: () => void;
    const first = new Promise<void>((done) => (release = done));
    const writer = keptWriter(async () => {
      const n = ++writes;
      order.push(`begin ${n}`);
      if (n === 1) await first;
      order.push(`end ${n}`);
    });
    const a = writer.request(); // begins at once (its turn comes after nothing)
    await Promise.resolve();
    const b = writer.request(); // waits for the first write to end
    const c = writer.request(); // shares b's write
    expect(c).toBe(b);
    release();
    await Promise.all([a, b, c]);
    expect(order).toEqual(['begin 1', 'end 1', 'begin 2', 'end 2']);
  });
});

describe("the local stream's positions", () => {
  it('are loaded as saved, for the same stream only', async () => {
    const file = newFile();
    const positions = new Map<string, ShardPosition>([
      ['shardId-1', { after: '000000000000000004311', reads: [] }],
      ['shardId-2', { after: '000000000000000000012', reads: [['000000000000000000013', 1_795_993_691_085]] }],
    ]);
    await saveStreamPositions(file, ARN, positions);
    expect(loadStreamPositions(file, ARN)).toEqual(positions);
    expect(loadStreamPositions(file, `${ARN}0`)).toEqual(new Map());
    expect(loadStreamPositions(newFile(), ARN)).toEqual(new Map());
  });

  it('count as none when the file is not theirs: the stream is then read from its oldest record', () => {
    const shards = (shard: string) => `{"streamArn":"${ARN}","shards":{"s":${shard}}}`;
    for (const text of [
      '{',
      '[]',
      `{"streamArn":"${ARN}"}`,
      shards('{"after":"x1","reads":[]}'),
      shards('{"after":"1"}'),
      shards('{"reads":[["2","soon"]]}'),
    ]) {
      const file = newFile();
      writeFileSync(file, text);
      expect(loadStreamPositions(file, ARN), text).toEqual(new Map());
    }
  });
});

describe("a record's time when it is read again", () => {
  it('is the time of the last read that began at or before it; none for a record never read', () => {
    const position = withRead(withRead(undefined, '100', 1_000), '105', 2_000);
    expect(readTimeOf(position, '099')).toBeUndefined();
    expect(['100', '104', '105', '999'].map((sequence) => readTimeOf(position, sequence))).toEqual([
      1_000, 1_000, 2_000, 2_000,
    ]);
  });

  it('compares sequence numbers as numbers, whatever their lengths', () => {
    expect(compareSequences('99', '100')).toBeLessThan(0);
    expect(compareSequences('100', '100')).toBe(0);
    expect(compareSequences('000000000000000000012', '000000000000000000011')).toBeGreaterThan(0);
  });

  it('is kept only for records not yet applied', () => {
    const position = withRead(withRead(undefined, '100', 1_000), '105', 2_000);
    expect(appliedUpTo(position, '104')).toEqual({ after: '104', reads: [['105', 2_000]] });
    expect(appliedUpTo(position, '200')).toEqual({ after: '200', reads: [] });
  });
});
