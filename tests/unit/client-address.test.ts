/**
 * Which client a login failure is counted against (shared/domain/client-address.ts): CloudFront's
 * viewer address only when the request came through the edge, an IPv6 client by its /64.
 */
import { describe, expect, it } from 'vitest';
import { clientSource, parseViewerAddress, throttleSource } from '../../shared/domain/client-address';

describe('parseViewerAddress (CloudFront-Viewer-Address: "ip:port")', () => {
  it('takes the address before the port, IPv4 and IPv6 (which CloudFront writes without brackets)', () => {
    expect(parseViewerAddress('198.51.100.10:46532')).toBe('198.51.100.10');
    expect(parseViewerAddress('2406:2d40:728d:fa10::c4a:42838')).toBe('2406:2d40:728d:fa10::c4a');
    expect(parseViewerAddress('2001:db8::1:443')).toBe('2001:db8::1');
    expect(parseViewerAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(parseViewerAddress('192.0.2.1:1, 198.51.100.10:46532')).toBe('198.51.100.10');
  });

  it('is undefined for anything that is not an address and a port', () => {
    for (const value of [
      undefined,
      '',
      '198.51.100.10',
      '198.51.100.10:',
      'example.com:443',
      '198.51.100.300:1',
      '1.2.3.4:443, 5.6.7.8',
      ':443',
      '1.2.3.4:http',
    ]) {
      expect(parseViewerAddress(value), String(value)).toBeUndefined();
    }
  });
});

describe('throttleSource', () => {
  it('keeps an IPv4 address, and makes an IPv4-mapped IPv6 address its IPv4 address', () => {
    expect(throttleSource('203.0.113.7')).toBe('203.0.113.7');
    expect(throttleSource('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(throttleSource('::ffff:c000:0280')).toBe('192.0.2.128');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    expect(throttleSource('2001:db8:1:2::5')).toBe('2001:db8:1:2::/64');
    expect(throttleSource('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(throttleSource('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(throttleSource('::1')).toBe('0:0:0:0::/64');
    expect(throttleSource('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(throttleSource('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(throttleSource('2001:db8:1:3::5')).not.toBe(throttleSource('2001:db8:1:2::5'));
  });
});

describe('clientSource', () => {
  it("is the viewer's when the edge's header is passed, else the connection's", () => {
    expect(clientSource('130.176.0.1', '198.51.100.10:46532')).toBe('198.51.100.10');
    expect(clientSource('130.176.0.1', '2001:db8:1:2::5:443')).toBe('2001:db8:1:2::/64');
    expect(clientSource('130.176.0.1')).toBe('130.176.0.1');
    // A malformed header from the edge: counted by the connection, as before the edge named viewers.
    expect(clientSource('130.176.0.1', 'garbage')).toBe('130.176.0.1');
  });
});
