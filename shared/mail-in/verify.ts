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

/** The check of `raw`, whose From domain is `fromDomain`; `sealers`: the ARC sealers trusted (lowercase domains). */
export async function checkAuthor(
  raw: Uint8Array,
  fromDomain: string,
  sealers: string[],
  records?: PinnedRecords,
): Promise<AuthorCheck> {
  if (!fromDomain) return { verified: false, detail: 'no From domain' };
  const result = await authenticate(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), {
    ...(records ? { resolver: pinnedResolver(records) } : {}),
    disableBimi: true,
    mta: 'helpdesk',
  });
  const dmarc = result.dmarc ? result.dmarc.status.result : 'none';
  if (dmarc === 'pass') return { verified: true, detail: 'dmarc' };
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
    return { verified: true, detail: `arc:${sealer}` };
  const arcResult =
    arc && arc.status.result !== 'none' ? `, ARC ${arc.status.result}${sealer ? ` by ${sealer}` : ''}` : '';
  return { verified: false, detail: `DMARC ${dmarc}${arcResult}` };
}
