/**
 * Which client a request is from, as the failed-login throttle counts it (login-throttle.ts).
 *
 * API Gateway's `sourceIp` is the address that opened the connection to it. Behind the optional edge
 * (infra/edge.ts) that is one of CloudFront's, shared by every viewer that reaches the same edge
 * location: counted by it, ten wrong passwords from anyone would lock a username for all of them,
 * and one sprayer would lock everyone there out. CloudFront names the viewer in
 * `CloudFront-Viewer-Address` ("ip:port", IPv6 without brackets), but anyone can send that header
 * too, so it is believed only for a request that proved it came through the edge (its origin
 * secret, middleware/origin.ts); any other request is counted by `sourceIp`, whatever it claims.
 *
 * An IPv6 client is counted by its /64, the network one subscriber is given: counted by single
 * address, one client could try 2^64 of them and never be throttled. An IPv4-mapped IPv6 address is
 * its IPv4 address.
 */
import { isIP } from 'node:net';

/** The header CloudFront adds with the viewer's address and port (when the origin request policy forwards it). */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';

/**
 * The address in a `CloudFront-Viewer-Address` value ("198.51.100.10:46532", "2001:db8::1:46532");
 * undefined if it is not one. Of several values, the last: should a viewer's own header ever be kept
 * beside CloudFront's, CloudFront's is the one added last.
 */
export function parseViewerAddress(value: string | undefined): string | undefined {
  const text = value?.split(',').pop()?.trim() ?? '';
  const colon = text.lastIndexOf(':');
  if (colon < 0 || !/^\d{1,5}$/.test(text.slice(colon + 1))) return undefined;
  const address = text.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return isIP(address) ? address : undefined;
}

/** The eight 16-bit groups of a valid IPv6 address (a zone dropped, an IPv4 tail folded in). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  // The IPv4 tail follows the last colon.
  const lastColon = text.lastIndexOf(':');
  const ipv4Tail = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text.slice(lastColon + 1));
  if (ipv4Tail) {
    const [a, b, c, d] = ipv4Tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const split = (part: string) => (part ? part.split(':') : []);
  const groups =
    tail === undefined
      ? split(head)
      : [...split(head), ...Array<string>(8 - split(head).length - split(tail).length).fill('0'), ...split(tail)];
  return groups.map((group) => parseInt(group, 16));
}

/** What a login failure from `address` is counted against: an IPv4 address, or an IPv6 address's /64. */
export function throttleSource(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/**
 * The client a request is counted as: the viewer CloudFront names when the request came through the
 * edge (`viewerHeader` is then passed; a missing or malformed one falls back), else `sourceIp`.
 */
export function clientSource(sourceIp: string, viewerHeader?: string): string {
  return throttleSource(parseViewerAddress(viewerHeader) ?? sourceIp);
}
