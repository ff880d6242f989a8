/**
 * The author check's bound on DKIM signatures (shared/mail-in/verify.ts): at most MAX_DKIM_SIGNATURES are handed to
 * mailauth, the From domain's first, every other byte of the message as sent.
 */
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { MAX_DKIM_SIGNATURES, boundedSignatures, checkAuthor } from '../../shared/mail-in/verify';

const DOMAIN = 'customer.example';
const junk = (i: number, domain = `junk${i}.example`) =>
  `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${domain}; s=s${i}; l=${1000 - i};\r\n` +
  `\th=from:subject; bh=${Buffer.alloc(32, i).toString('base64')}; b=${Buffer.alloc(64, i).toString('base64')}\r\n`;
/** The DKIM-Signature fields of a message's header block. */
const signatures = (raw: Buffer) =>
  raw
    .toString('latin1')
    .split(/\r?\n\r?\n/)[0]!
    .match(/^DKIM-Signature:.*(?:\r?\n[ \t].*)*/gim) ?? [];

describe('boundedSignatures', () => {
  const headers = 'From: ann@customer.example\r\nTo: support@localhost\r\nSubject: Café\r\n';
  const body = '\r\nHello.\r\n\r\nDKIM-Signature: in the body, not a field\r\n';

  it(`keeps ${MAX_DKIM_SIGNATURES} of more: the From domain's (or one above or under it) first, then in order`, () => {
    const raw = Buffer.from(
      junk(1) +
        junk(2) +
        headers +
        junk(3) +
        junk(4) +
        junk(5) +
        junk(6) +
        junk(7, `mail.${DOMAIN}`) +
        junk(8, DOMAIN) +
        body,
      'latin1',
    );
    const bounded = boundedSignatures(raw, DOMAIN);
    expect(bounded.dropped).toBe(3);
    expect(signatures(bounded.raw).map((s) => /d=([^;]+)/.exec(s)![1])).toEqual([
      'junk1.example',
      'junk2.example',
      'junk3.example',
      `mail.${DOMAIN}`,
      DOMAIN,
    ]);
    // Every other byte as sent: the fields around them, the empty line and the body (with its look-alike line).
    expect(bounded.raw.toString('latin1')).toBe(
      junk(1) + junk(2) + headers + junk(3) + junk(7, `mail.${DOMAIN}`) + junk(8, DOMAIN) + body,
    );
  });

  it('returns a message of no more signatures as it is, and reads line ends of LF alone', () => {
    const few = Buffer.from(junk(1) + headers + junk(2) + body);
    expect(boundedSignatures(few, DOMAIN)).toEqual({ raw: few, dropped: 0 });
    const lf = Buffer.from(
      (junk(1) + junk(2) + junk(3) + junk(4) + junk(5) + junk(6) + headers + body).replaceAll('\r', ''),
    );
    const bounded = boundedSignatures(lf, DOMAIN);
    expect(bounded.dropped).toBe(1);
    expect(bounded.raw.toString()).toBe(
      (junk(1) + junk(2) + junk(3) + junk(4) + junk(5) + headers + body).replaceAll('\r', ''),
    );
  });
});

describe('checkAuthor', () => {
  it('verifies a message signed by its From domain behind 1,000 other signatures, checking 5 of them', async () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const records = {
      [`TXT:sel._domainkey.${DOMAIN}`]: [
        [`v=DKIM1; k=rsa; p=${key.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`],
      ],
      [`TXT:_dmarc.${DOMAIN}`]: [['v=DMARC1; p=reject']],
    };
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
    const signed = (
      await transport.sendMail({
        from: `ann@${DOMAIN}`,
        to: 'support@localhost',
        subject: 'Printer',
        text: 'Hello.',
        dkim: {
          domainName: DOMAIN,
          keySelector: 'sel',
          privateKey: key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
      })
    ).message as Buffer;
    expect(await checkAuthor(signed, DOMAIN, [], records)).toEqual({ verified: true, detail: 'dmarc' });
    const flooded = Buffer.concat([Buffer.from(Array.from({ length: 1_000 }, (_, i) => junk(i)).join('')), signed]);
    expect(await checkAuthor(flooded, DOMAIN, [], records)).toEqual({
      verified: true,
      detail: `dmarc (996 DKIM signatures past the first ${MAX_DKIM_SIGNATURES} not checked)`,
    });
  });
});
