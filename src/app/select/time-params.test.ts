import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayRange, parseStepParam, parseTimeParam } from './time-params.ts';

const NOW = Date.UTC(2024, 5, 15, 12, 30, 0);

describe('parseTimeParam', () => {
  it('accepts every documented form', () => {
    const f = (text: string, want: number) => expect(parseTimeParam(text, NOW)).toBe(want);
    // unix seconds, fractional seconds, milliseconds
    f('1700000000', 1_700_000_000_000);
    f('1700000000.123', 1_700_000_000_123);
    f('1700000000123', 1_700_000_000_123);
    f('0', 0);
    // relative and now
    f('now', NOW);
    f('-1h', NOW - 3_600_000);
    f('-1d', NOW - 86_400_000);
    // RFC 3339 and date prefixes, UTC unless a zone is given
    f('2024-01-02T03:04:05Z', Date.UTC(2024, 0, 2, 3, 4, 5));
    f('2024-01-02T03:04:05.5+02:00', Date.UTC(2024, 0, 2, 1, 4, 5, 500));
    f('2024-01-02', Date.UTC(2024, 0, 2));
    f('2024-01', Date.UTC(2024, 0, 1));
    f('2024-01-02T03:04:05', Date.UTC(2024, 0, 2, 3, 4, 5));
  });

  it('rejects anything else naming the text', () => {
    const f = (text: string) => expect(() => parseTimeParam(text, NOW)).toThrow(`cannot parse time "${text}"`);
    f('');
    f('yesterday');
    f('-x');
    f('1e400');
    f('2024-13-99Tzz');
    f('2024-13-01');
    f('2024-01-01T25:00:00Z');
  });

  it('returns finite integers or throws an Error on arbitrary text', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        expect(Number.isInteger(parseTimeParam(s, NOW))).toBe(true);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});

describe('parseStepParam', () => {
  it('takes durations and seconds, rejects non-positive values', () => {
    const f = (text: string, want: number) => expect(parseStepParam(text)).toBe(want);
    f('15s', 15_000);
    f('1m30s', 90_000);
    f('15', 15_000);
    f('0.5', 500);
    expect(() => parseStepParam('0')).toThrow('must be positive');
    expect(() => parseStepParam('-5s')).toThrow('must be positive');
    expect(() => parseStepParam('fast')).toThrow('cannot parse step "fast"');
  });
});

describe('dayRange', () => {
  it('defaults to the current UTC day and widens explicit bounds to whole days', () => {
    const day = Date.UTC(2024, 5, 15);
    expect(dayRange(undefined, undefined, NOW)).toEqual({ minTimestamp: day, maxTimestamp: day + 86_400_000 - 1 });
    expect(dayRange(Date.UTC(2024, 5, 13, 5), Date.UTC(2024, 5, 14, 1), NOW)).toEqual({ minTimestamp: Date.UTC(2024, 5, 13), maxTimestamp: day - 1 });
  });
});
