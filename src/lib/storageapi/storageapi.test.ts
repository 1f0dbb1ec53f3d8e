import { describe, expect, it } from 'vitest';
import { LimitExceededError } from './errors.ts';
import { STALE_NAN, isStaleNaN } from './stale.ts';

describe('isStaleNaN', () => {
  it('tells the staleness marker apart from ordinary NaN and numbers', () => {
    const f = (v: number, want: boolean) => expect(isStaleNaN(v)).toBe(want);
    f(STALE_NAN, true);
    f(NaN, false);
    f(0, false);
    f(Infinity, false);
  });

  it('survives a round trip through a Float64Array', () => {
    const a = new Float64Array(1);
    a[0] = STALE_NAN;
    expect(isStaleNaN(a[0]!)).toBe(true);
  });
});

describe('LimitExceededError', () => {
  it('names the flag without a leading dash however the thrower spelled it', () => {
    expect(new LimitExceededError('x', '-search.maxSeries', 1).flag).toBe('search.maxSeries');
    expect(new LimitExceededError('x', 'search.maxSeries', 1).flag).toBe('search.maxSeries');
  });
});
