import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBytes, parseBytes } from './bytes.ts';

describe('parseBytes', () => {
  it('parses decimal and binary suffixes', () => {
    const f = (text: string, want: number) => expect(parseBytes(text)).toBe(want);
    f('0', 0);
    f('1024', 1024);
    f('1KB', 1000);
    f('64MiB', 64 * 1024 * 1024);
    f('1.5GB', 1_500_000_000);
    f('2GiB', 2 * 1024 ** 3);
    f('1TB', 1e12);
    f('1TiB', 1024 ** 4);
    f('1e6', 1_000_000);
    f('10 MB', 10_000_000);
  });

  it('rejects unknown suffixes and junk', () => {
    const f = (text: string) => expect(() => parseBytes(text)).toThrow(/cannot parse size/);
    f('');
    f('1XB');
    f('MB');
    f('-1MB');
    f('1mb');
  });

  it('returns a safe integer or throws an Error on arbitrary input', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        expect(Number.isSafeInteger(parseBytes(s))).toBe(true);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});

describe('formatBytes', () => {
  it('uses the largest binary unit', () => {
    const f = (n: number, want: string) => expect(formatBytes(n)).toBe(want);
    f(0, '0 B');
    f(1023, '1023 B');
    f(318_874, '311.4 KiB');
    f(5 * 1024 ** 3, '5 GiB');
  });
});
