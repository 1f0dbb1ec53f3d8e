import { describe, expect, it } from 'vitest';
import { IpFilter, IpFilterError } from './ip-filter.ts';

describe('IpFilter', () => {
  it('lets the deny list win, and an empty allow list allow all not denied', () => {
    const f = (allow: string[], deny: string[], ip: string, want: boolean) => expect(new IpFilter(allow, deny).allows(ip)).toBe(want);
    f([], [], '1.2.3.4', true);
    f(['10.0.0.0/8'], [], '10.1.2.3', true);
    f(['10.0.0.0/8'], [], '11.1.2.3', false);
    f(['10.0.0.0/8'], ['10.0.0.5'], '10.0.0.5', false);
    f([], ['10.0.0.0/8'], '10.9.9.9', false);
    f([], ['10.0.0.0/8'], '192.168.0.1', true);
    // IPv4-mapped IPv6 peers are checked as IPv4
    f(['127.0.0.1'], [], '::ffff:127.0.0.1', true);
    f([], ['127.0.0.0/8'], '::ffff:127.0.0.1', false);
    f(['::1'], [], '::1', true);
    f(['2001:db8::/32'], [], '2001:db8::7', true);
    f(['2001:db8::/32'], [], '2001:db9::7', false);
    f([], [], 'not-an-ip', false);
  });

  it('rejects entries that are not addresses or networks', () => {
    const f = (entry: string, want: RegExp) => expect(() => new IpFilter([entry], [])).toThrow(want);
    f('10.0.0.0/33', /invalid prefix length/);
    f('10.0.0.0/', /invalid prefix length/);
    f('example.com', /not an IP address/);
    f('10.0.0.0/8/8', /invalid prefix length/);
    expect(() => new IpFilter([], ['x'])).toThrow(IpFilterError);
  });
});
