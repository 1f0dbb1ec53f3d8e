import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNodeAddress, parseNodeAddresses } from './node-address.ts';

describe('parseNodeAddress', () => {
  it('normalises host:port, adds the default port, keeps IPv6 brackets', () => {
    const f = (entry: string, want: string) => expect(parseNodeAddress(entry, 8400)).toBe(want);
    f('h1:8400', 'h1:8400');
    f('h1', 'h1:8400');
    f(' 10.0.0.1:9000 ', '10.0.0.1:9000');
    f('[::1]:8401', '[::1]:8401');
    f('[::1]', '[::1]:8400');
    f('storage-0.storage.ns.svc:08400', 'storage-0.storage.ns.svc:8400');
  });

  it('rejects what no client could dial, naming the entry', () => {
    const f = (entry: string, why: string) => expect(() => parseNodeAddress(entry, 8400)).toThrow(why);
    f('', 'empty');
    f(':8400', 'host is empty');
    f('h1:0', 'from 1 to 65535');
    f('h1:65536', 'from 1 to 65535');
    f('h1:x', 'from 1 to 65535');
    f('http://h1:8400', 'without a scheme');
    f('::1', 'brackets');
    f('[::1', 'unterminated');
    f('[::1]x', '[ipv6]:port');
  });

  it('rejects a node given twice', () => {
    expect(parseNodeAddresses(['a:1', 'b'], 8400)).toEqual(['a:1', 'b:8400']);
    expect(() => parseNodeAddresses(['a', 'a:8400'], 8400)).toThrow('storage node a:8400 is given twice');
  });

  it('returns host:port or throws an Error for any text', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        expect(parseNodeAddress(s, 8400)).toMatch(/^(\[[^\]]*\]|[^:]+):\d+$/);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});
