import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it('parses Go-style and retention-style durations into milliseconds', () => {
    const f = (text: string, wantMs: number) => expect(parseDuration(text)).toBeCloseTo(wantMs, 9);
    // Go forms
    f('1h30m', 5_400_000);
    f('5m0s', 300_000);
    f('500ms', 500);
    f('1.5h', 5_400_000);
    f('0', 0);
    f('-1h', -3_600_000);
    f('100us', 0.1);
    f('1µs', 0.001);
    f('2ns', 0.000002);
    // retention extensions
    f('1d', 86_400_000);
    f('2w', 14 * 86_400_000);
    f('1y', 365 * 86_400_000);
  });

  it('rejects malformed text with a message naming it', () => {
    const f = (text: string) => expect(() => parseDuration(text)).toThrow(new RegExp(`cannot parse duration "${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
    f('');
    f('5');
    f('1x');
    f('h');
    f('1h 30m');
    f('--1h');
  });

  it('never throws anything but an Error on arbitrary input', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        expect(Number.isFinite(parseDuration(s))).toBe(true);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});

describe('formatDuration', () => {
  it('prints like Go time.Duration.String and round-trips', () => {
    const f = (ms: number, want: string) => {
      expect(formatDuration(ms)).toBe(want);
      expect(parseDuration(want)).toBeCloseTo(ms, 9);
    };
    f(0, '0s');
    f(500, '500ms');
    f(300_000, '5m0s');
    f(5_400_000, '1h30m0s');
    f(7_000, '7s');
    f(1_500, '1.5s');
    f(-60_000, '-1m0s');
    f(0.5, '500µs');
  });

  it('round-trips every whole number of milliseconds', () => {
    fc.assert(fc.property(fc.integer({ min: -1e12, max: 1e12 }), (ms) => {
      expect(parseDuration(formatDuration(ms))).toBeCloseTo(ms, 3);
    }));
  });
});
