import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRetentionPeriod, MONTH_MS, parseRetentionPeriod } from './retention.ts';

describe('parseRetentionPeriod', () => {
  it('reads bare numbers as months and accepts h/d/w/y suffixes', () => {
    const f = (text: string, want: number) => expect(parseRetentionPeriod(text)).toBe(want);
    f('1', MONTH_MS);
    f('12', 12 * MONTH_MS);
    f('90d', 90 * 86_400_000);
    f('2w', 14 * 86_400_000);
    f('1y', 365 * 86_400_000);
    f('36h', 36 * 3_600_000);
  });

  it('rejects periods under a day and junk', () => {
    expect(() => parseRetentionPeriod('1h')).toThrow(/shorter than one day/);
    expect(() => parseRetentionPeriod('0')).toThrow(/shorter than one day/);
    expect(() => parseRetentionPeriod('forever')).toThrow();
  });

  it('round-trips through its printed form and never throws a non-Error', () => {
    for (const ms of [MONTH_MS, 3 * MONTH_MS, 90 * 86_400_000, 30 * 3_600_000]) expect(parseRetentionPeriod(formatRetentionPeriod(ms))).toBe(ms);
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        expect(parseRetentionPeriod(s)).toBeGreaterThanOrEqual(86_400_000);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});
