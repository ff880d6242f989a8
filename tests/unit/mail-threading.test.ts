import { describe, expect, it } from 'vitest';
import {
  AUTO_SUBMITTED_HEADERS,
  MAX_REFERENCES,
  MAX_REPORTED_RECIPIENTS_CHECKED,
  MAX_RETURN_PATHS_CHECKED,
  bounceAddress,
  bouncesVerified,
  TAG_LENGTH,
  messageIdsIn,
  ownMessageId,
  replyAddress,
  sesMessageId,
  threadHeaders,
  threadRoot,
  ticketOfReplyAddress,
  ticketOfThreadRoot,
  ticketTag,
} from '../../shared/domain/mail-threading';
import { mailId } from '../../shared/domain/mail';

const SECRET = 'a-deployment-secret-of-some-length';

describe('reply address', () => {
  it('plus-addresses the ticket and a tag of its own, and verifies back to the ticket', () => {
    const address = replyAddress('support@Example.com', 42, SECRET);
    expect(address).toMatch(new RegExp(`^support\\+42\\.[a-z2-7]{${TAG_LENGTH}}@example\\.com$`));
    expect(ticketOfReplyAddress(address, SECRET)).toBe(42);
    expect(ticketOfReplyAddress(address.toUpperCase(), SECRET)).toBe(42); // mail systems may change case
    expect(ticketOfReplyAddress(` ${address} `, SECRET, 'support@example.com')).toBe(42);
  });

  it('refuses a forged, altered or moved address', () => {
    const address = replyAddress('support@example.com', 42, SECRET);
    const tag = address.slice(address.indexOf('.') + 1, address.indexOf('@'));
    expect(ticketOfReplyAddress(address.replace('+42.', '+43.'), SECRET)).toBeUndefined();
    expect(ticketOfReplyAddress(address, 'another-secret')).toBeUndefined();
    const flipped = tag.slice(0, -1) + (tag.endsWith('a') ? 'b' : 'a');
    expect(ticketOfReplyAddress(address.replace(tag, flipped), SECRET)).toBeUndefined();
    expect(ticketOfReplyAddress(address.replace(tag, tag.slice(0, -1)), SECRET)).toBeUndefined();
    expect(ticketOfReplyAddress(address, SECRET, 'help@example.com')).toBeUndefined();
    expect(
      ticketOfReplyAddress(address.replace('example.com', 'other.org'), SECRET, 'support@example.com'),
    ).toBeUndefined();
    for (const bad of [
      'support@example.com',
      'support+42@example.com',
      'support+042.x@example.com',
      '+42.abc@example.com',
      'no-at-sign',
      'support+99999999999999999.aaaaaaaaaaaaaaaa@example.com',
    ]) {
      expect(ticketOfReplyAddress(bad, SECRET)).toBeUndefined();
    }
  });

  it("keeps a base address's own plus detail", () => {
    const address = replyAddress('help+desk@example.com', 7, SECRET);
    expect(address.startsWith('help+desk+7.')).toBe(true);
    expect(ticketOfReplyAddress(address, SECRET, 'help+desk@example.com')).toBe(7);
  });

  it('a reply tag does not verify as a thread root, nor the reverse', () => {
    expect(ticketTag(SECRET, 'reply', 5)).not.toBe(ticketTag(SECRET, 'root', 5));
    const root = threadRoot(5, 'example.com', SECRET);
    const rootTag = /ticket\.5\.([a-z2-7]+)@/.exec(root)![1]!;
    expect(ticketOfReplyAddress(`support+5.${rootTag}@example.com`, SECRET)).toBeUndefined();
  });

  it('refuses an empty secret rather than tagging with none', () => {
    expect(() => replyAddress('support@example.com', 1, '')).toThrow(/secret/);
    expect(() => replyAddress('not an address', 1, SECRET)).toThrow(/Not an e-mail address/);
  });
});

describe('return paths', () => {
  const ours = (recipient: string, mail = 'mail-1') => bounceAddress('helpdesk@example.com', mail, recipient, SECRET);

  it("verifies a report's recipient at the return path of a mail sent to it, and no other", () => {
    const path = ours('alice@example.com');
    expect(bouncesVerified([path], ['alice@example.com', 'bob@example.com'], SECRET)).toEqual(['alice@example.com']);
    expect(bouncesVerified([path.toUpperCase()], ['alice@example.com'], SECRET)).toEqual(['alice@example.com']);
    expect(bouncesVerified(['helpdesk@example.com'], ['alice@example.com'], SECRET)).toEqual([]);
    expect(bouncesVerified([ours('bob@example.com')], ['alice@example.com'], SECRET)).toEqual([]);
  });

  const bounds = `${MAX_RETURN_PATHS_CHECKED} return paths and ${MAX_REPORTED_RECIPIENTS_CHECKED} recipients`;
  it(`checks the first ${bounds}`, () => {
    const forged = (n: number) => Array.from({ length: n }, (_, i) => `desk+b.k${i}.aaaaaaaaaaaaaaaa@example.com`);
    const strangers = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@example.com`);
    // Each once: a path repeated, or a recipient, costs nothing more.
    const path = ours('alice@example.com');
    expect(bouncesVerified([...Array(50).fill(path)], ['alice@example.com'], SECRET)).toEqual(['alice@example.com']);
    expect(bouncesVerified([path], [...Array(50).fill('alice@example.com')], SECRET)).toEqual(['alice@example.com']);
    // Past the bounds, nothing more is checked: a real report names one return path and a recipient or two.
    const late = forged(MAX_RETURN_PATHS_CHECKED);
    expect(bouncesVerified([...late, path], ['alice@example.com'], SECRET)).toEqual([]);
    expect(
      bouncesVerified([path], [...strangers(MAX_REPORTED_RECIPIENTS_CHECKED), 'alice@example.com'], SECRET),
    ).toEqual([]);
    expect(bouncesVerified([...forged(3000), path], [...strangers(3000), 'alice@example.com'], SECRET)).toEqual([]);
  });
});

describe('thread root and headers', () => {
  it('is stable per ticket and verifiable, whatever the domain', () => {
    const root = threadRoot(9, 'Mail.Example.com', SECRET);
    expect(root).toBe(threadRoot(9, 'mail.example.com', SECRET));
    expect(root).toMatch(/^<ticket\.9\.[a-z2-7]{16}@mail\.example\.com>$/);
    expect(ticketOfThreadRoot(root, SECRET)).toBe(9);
    expect(ticketOfThreadRoot(root.replace('mail.example.com', 'other.org'), SECRET)).toBe(9);
    expect(ticketOfThreadRoot(root.replace('ticket.9.', 'ticket.8.'), SECRET)).toBeUndefined();
    expect(ticketOfThreadRoot('<something@else>', SECRET)).toBeUndefined();
  });

  it('the first mail answers the root; later ones the previous mail, with the root first in References', () => {
    const root = threadRoot(3, 'example.com', SECRET);
    expect(threadHeaders(root, [])).toEqual({ 'In-Reply-To': root, References: root });
    expect(threadHeaders(root, ['<a@x>', '<b@x>'])).toEqual({
      'In-Reply-To': '<b@x>',
      References: `${root} <a@x> <b@x>`,
    });
  });

  it('References keep the root and the latest MAX_REFERENCES', () => {
    const root = threadRoot(3, 'example.com', SECRET);
    const previous = Array.from({ length: 25 }, (_, i) => `<m${i}@x>`);
    const refs = messageIdsIn(threadHeaders(root, previous).References);
    expect(refs).toHaveLength(MAX_REFERENCES + 1);
    expect(refs[0]).toBe(root);
    expect(refs.at(-1)).toBe('<m24@x>');
  });

  it('reads Message-IDs out of a header, each once', () => {
    expect(messageIdsIn(' <a@x>\r\n <b@y> <a@x> junk')).toEqual(['<a@x>', '<b@y>']);
    expect(messageIdsIn(undefined)).toEqual([]);
  });

  it("SES's Message-ID is built from its answer and region", () => {
    expect(sesMessageId('0100abc-def', 'eu-west-1')).toBe('<0100abc-def@eu-west-1.amazonses.com>');
    expect(sesMessageId('0100abc-def', 'us-east-1')).toBe('<0100abc-def@email.amazonses.com>');
    expect(ownMessageId(4, 'xyz', 'Example.com')).toBe('<mail.4.xyz@example.com>');
  });

  it('notifications say they are automatic (RFC 3834)', () => {
    expect(AUTO_SUBMITTED_HEADERS).toEqual({ 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' });
  });
});

describe('mail ids', () => {
  const change = (at: number, sequence: string, id = 'change-1') => ({ at, sequence, id });
  it('are the same for a change, kind and address however often asked', () => {
    const a = mailId(change(Date.UTC(2026, 0, 2), '100'), 'newticket_submitter', 'Ann@Example.com');
    expect(a).toBe(mailId(change(Date.UTC(2026, 0, 2), '100'), 'newticket_submitter', 'ann@example.com'));
    expect(a).not.toBe(mailId(change(Date.UTC(2026, 0, 2), '100'), 'newticket_cc', 'ann@example.com'));
    expect(a).not.toBe(
      mailId(change(Date.UTC(2026, 0, 2), '100', 'change-2'), 'newticket_submitter', 'ann@example.com'),
    );
  });

  it('sort in commit order: by time, then by the stream sequence within one second', () => {
    const t = Date.UTC(2026, 0, 2);
    const ids = [
      mailId(change(t, '99'), 'closed_cc', 'z@x'),
      mailId(change(t, '100'), 'assigned_cc', 'a@x'),
      mailId(change(t + 1000, '5'), 'assigned_cc', 'a@x'),
    ];
    expect([...ids].sort()).toEqual(ids);
  });
});
