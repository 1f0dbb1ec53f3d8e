import { describe, expect, it } from 'vitest';
import { parseListenAddr } from './listen-addr.ts';

describe('parseListenAddr', () => {
  it('parses host:port forms', () => {
    const f = (addr: string, tcp6: boolean, host: string, port: number) => expect(parseListenAddr(addr, tcp6)).toEqual({ host, port });
    f(':8428', false, '0.0.0.0', 8428);
    f(':8428', true, '::', 8428);
    f('127.0.0.1:0', false, '127.0.0.1', 0);
    f('localhost:80', false, 'localhost', 80);
    f('[::1]:8428', true, '::1', 8428);
  });

  it('rejects bad addresses and IPv6 without -enableTCP6', () => {
    const f = (addr: string, want: RegExp) => expect(() => parseListenAddr(addr, false)).toThrow(want);
    f('8428', /cannot parse listen address "8428"/);
    f(':99999', /port 99999 is above 65535/);
    f('[::1]:8428', /pass -enableTCP6/);
    f('[zz]:1', /not an IPv6 address/);
    f('a:b:1', /cannot parse/);
  });
});
