/** Login attempts and the 429 they may end in, for the throttling tests. */
import { expect } from 'vitest';
import { basic, call, type Reply } from './client';

const THROTTLED = /^Request was throttled\. Expected available in (\d+) seconds?\.$/;

export async function attempt(auth: string, base?: string): Promise<Reply & { ms: number }> {
  const started = performance.now();
  const reply = await call('GET', '/api/user_tickets/', { auth, base });
  return { ...reply, ms: performance.now() - started };
}

export async function fail(username: string, times: number, base?: string): Promise<(Reply & { ms: number })[]> {
  const replies = [];
  for (let i = 0; i < times; i++) replies.push(await attempt(basic(username, `wrong-password-${i}`), base));
  return replies;
}

export function expectThrottled(reply: Reply, maxSeconds: number): number {
  expect(reply.status, reply.text).toBe(429);
  const wait = Number(THROTTLED.exec(reply.body.detail)?.[1]);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(maxSeconds);
  expect(reply.headers.get('retry-after')).toBe(String(wait));
  expect(reply.headers.get('www-authenticate')).toBeNull();
  expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  return wait;
}
