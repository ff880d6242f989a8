/**
 * Whether a message is verified for its From address by its domain (issue 32, docs/email.md "Who
 * may change what"): DMARC passes for the From domain, that is a DKIM signature of that domain
 * (aligned) verifies on the raw message; or the message came through a forwarder the operator
 * trusts (HELPDESK_MAIL_IN_ARC_SEALERS) whose ARC chain verifies and whose ARC-Authentication-Results
 * say DMARC passed for that domain when it received it. Checked with mailauth, in the text worker
 * (a stranger's headers are parsed there, under the budget). SES's own DMARC verdict stands in for
 * this on AWS (ingest.ts). SPF is not checked here: the connecting address is not known past the
 * first hop, and DMARC needs only one aligned pass.
 */
import { authenticate, type DNSResolver } from 'mailauth';

/** DNS answers pinned by name (`TXT:<name>`), for a machine without DNS (tests, offline development). */
export type PinnedRecords = Record<string, string[][]>;

export interface AuthorCheck {
  verified: boolean;
  /** How: `dmarc` or `arc:<sealer>`; why not otherwise. */
  detail: string;
}

function pinnedResolver(records: PinnedRecords): DNSResolver {
  return (name, rrtype) => {
    const found = records[`${rrtype}:${name.toLowerCase().replace(/\.$/, '')}`];
    if (found) return Promise.resolve(found);
    return Promise.reject(Object.assign(new Error(`no ${rrtype} record for ${name}`), { code: 'ENOTFOUND' }));
  };
}

/**
 * DKIM signatures checked in a message; RFC 6376 (section 6.1) lets a verifier limit them. mailauth checks every one,
 * each with a body hash of its own when its `l=` differs and a DNS lookup when its key does: 1,000 signatures on a
 * 1 MB body took 5.4 s of CPU (2026-11-30), and each could have the helpdesk look up a name the sender chose. DMARC
 * needs one signature aligned with the From domain, so those are kept first; a sender signs with one or two.
 */
export const MAX_DKIM_SIGNATURES = 5;

/** A DKIM-Signature field's `d=` tag, lowercased. */
const domainOf = (field: string) =>
  /(?:^|;)\s*d\s*=\s*([^\s;]+)/i.exec(field.slice(field.indexOf(':') + 1).replace(/\r?\n/g, ''))?.[1]?.toLowerCase();
const aligned = (domain: string | undefined, fromDomain: string) =>
  !!domain && (domain === fromDomain || fromDomain.endsWith(`.${domain}`) || domain.endsWith(`.${fromDomain}`));

/** Where the header block ends: after the line end before its first empty line (the whole message if none). */
function headerEndOf(raw: Buffer): number {
  for (let at = raw.indexOf(0x0a); at !== -1; at = raw.indexOf(0x0a, at + 1)) {
    if (raw[raw[at + 1] === 0x0d ? at + 2 : at + 1] === 0x0a) return at + 1;
  }
  return raw.length;
}

const isSignature = (field: string) => /^dkim-signature[ \t]*:/i.test(field);

/**
 * `raw` with at most MAX_DKIM_SIGNATURES DKIM-Signature fields (those of the From domain, or of a domain above or
 * under it, first; else in the message's order), and how many were left out. Every other byte stays as sent.
 */
export function boundedSignatures(raw: Buffer, fromDomain: string): { raw: Buffer; dropped: number } {
  const headerEnd = headerEndOf(raw);
  // The header block's fields, each with its folded lines (latin1: a character a byte, so the bytes are kept).
  const fields: string[] = [];
  const lines = raw
    .subarray(0, headerEnd)
    .toString('latin1')
    .split(/(?<=\n)/);
  for (const line of lines) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0) fields[fields.length - 1] += line;
    else fields.push(line);
  }
  const signatures = fields.flatMap((field, index) => (isSignature(field) ? [index] : []));
  if (signatures.length <= MAX_DKIM_SIGNATURES) return { raw, dropped: 0 };
  const ofFromDomain = (index: number) => aligned(domainOf(fields[index]!), fromDomain);
  const ordered = [...signatures.filter(ofFromDomain), ...signatures.filter((index) => !ofFromDomain(index))];
  const kept = new Set(ordered.slice(0, MAX_DKIM_SIGNATURES));
  const header = fields.filter((field, index) => !isSignature(field) || kept.has(index)).join('');
  return {
    raw: Buffer.concat([Buffer.from(header, 'latin1'), raw.subarray(headerEnd)]),
    dropped: signatures.length - MAX_DKIM_SIGNATURES,
  };
}

/** The check of `raw`, whose From domain is `fromDomain`; `sealers`: the ARC sealers trusted (lowercase domains). */
export async function checkAuthor(
  raw: Uint8Array,
  fromDomain: string,
  sealers: string[],
  records?: PinnedRecords,
): Promise<AuthorCheck> {
  if (!fromDomain) return { verified: false, detail: 'no From domain' };
  const bounded = boundedSignatures(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), fromDomain);
  const unchecked = bounded.dropped
    ? ` (${bounded.dropped} DKIM signatures past the first ${MAX_DKIM_SIGNATURES} not checked)`
    : '';
  const result = await authenticate(bounded.raw, {
    ...(records ? { resolver: pinnedResolver(records) } : {}),
    disableBimi: true,
    mta: 'helpdesk',
  });
  const dmarc = result.dmarc ? result.dmarc.status.result : 'none';
  if (dmarc === 'pass') return { verified: true, detail: `dmarc${unchecked}` };
  const arc = result.arc;
  const sealer =
    arc && arc.status.result === 'pass'
      ? (arc as { signature?: { signingDomain?: string } }).signature?.signingDomain?.toLowerCase()
      : undefined;
  const forwarded =
    arc && sealer
      ? (arc as { authenticationResults?: { dmarc?: { result?: string; header?: { from?: string } } } })
          .authenticationResults?.dmarc
      : undefined;
  if (
    sealer &&
    sealers.includes(sealer) &&
    forwarded?.result === 'pass' &&
    forwarded.header?.from?.toLowerCase() === fromDomain
  )
    return { verified: true, detail: `arc:${sealer}${unchecked}` };
  const arcResult =
    arc && arc.status.result !== 'none' ? `, ARC ${arc.status.result}${sealer ? ` by ${sealer}` : ''}` : '';
  return { verified: false, detail: `DMARC ${dmarc}${arcResult}${unchecked}` };
}
