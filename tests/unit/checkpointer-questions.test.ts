/**
 * The asking side of the write-ahead log's checkpointer (infra/local/sqlite-wal.ts `checkpointerQuestions`): its
 * thread answers in the order asked, and each question gets its own answer, however many wait at once.
 */
import { EventEmitter } from 'node:events';
import { setImmediate } from 'node:timers';
import { describe, expect, it, vi } from 'vitest';
import { checkpointerQuestions, type CheckpointerPort, type CheckpointStats } from '../../infra/local/sqlite-wal';

/** A thread that answers each message, in order, a turn later, with how many it has answered. */
function fakeThread(): CheckpointerPort & EventEmitter & { asked: string[] } {
  const thread = Object.assign(new EventEmitter(), {
    asked: [] as string[],
    postMessage(message: string) {
      thread.asked.push(message);
      const checkpoints = thread.asked.length;
      setImmediate(() => thread.emit('message', { stats: { checkpoints } as CheckpointStats }));
    },
  });
  return thread;
}

describe('checkpointerQuestions', () => {
  it('gives each question waiting at once its own answer, in the order asked', async () => {
    const thread = fakeThread();
    const ask = checkpointerQuestions(thread);
    const answers = await Promise.all([ask('stats'), ask('stats'), ask('close')]);
    expect(answers.map((a) => a.checkpoints)).toEqual([1, 2, 3]);
    expect(thread.asked).toEqual(['stats', 'stats', 'close']);
  });

  it("fails the questions waiting with the thread's error, and every later one", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const thread = Object.assign(new EventEmitter(), { postMessage: () => undefined });
    const ask = checkpointerQuestions(thread);
    const waiting = ask('stats');
    thread.emit('error', new Error('no sqlite'));
    await expect(waiting).rejects.toThrow('no sqlite');
    await expect(ask('close')).rejects.toThrow('no sqlite');
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });
});
