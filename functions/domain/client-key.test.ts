import { describe, expect, it } from 'vitest';
import { clientKey } from './client-key';

describe('the rate-limit key of a client', () => {
  it('an IPv4 address is itself', () => expect(clientKey('203.0.113.7')).toBe('ip4:203.0.113.7'));

  // 600 exchanges from 30 made-up addresses of one /64 spent the app's window.
  it('every IPv6 address of one /64 is one client', () => {
    const keys = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:1234:5678:9abc:def0',
      '[2001:db8:1:2::77]',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2:0:0:0.0.0.1',
    ].map(clientKey);
    expect(new Set(keys)).toEqual(new Set(['ip6:2001:db8:1:2::/64']));
  });

  it('another /64 is another client', () =>
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1')));

  it('an IPv4-mapped IPv6 address counts as its IPv4 address', () =>
    expect(clientKey('::ffff:203.0.113.7')).toBe('ip4:203.0.113.7'));

  it.each(['::1', '::', 'fe80::1', '1::', '1:2:3:4:5:6:7:8'])('%s parses as IPv6', (address) =>
    expect(clientKey(address)).toMatch(/^ip6:[0-9a-f:]+::\/64$/),
  );

  it.each(['1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '300.1.1.1'])(
    '%s is not an address and is kept as given',
    (text) => expect(clientKey(text)).toBe(text),
  );

  it('a name that is no address is cut to 64 characters; nothing is "unknown"', () => {
    expect(clientKey('x'.repeat(100))).toBe('x'.repeat(64));
    expect(clientKey('  ')).toBe('unknown');
  });
});
