import { describe, expect, it } from 'vitest';
import { KeyThrottle } from './key-throttle.ts';

describe('KeyThrottle', () => {
  it('lets one message per key through per interval and counts the dropped ones', () => {
    let now = 1_000;
    const t = new KeyThrottle(5_000, () => now);
    const f = (key: string, at: number, want: number | undefined) => {
      now = at;
      expect(t.take(key), `${key} at ${at}`).toBe(want);
    };
    // The first message of a key is written; the next ones within 5 s are dropped.
    f('/api/v1/import', 1_000, 0);
    f('/api/v1/import', 2_000, undefined);
    f('/api/v1/import', 5_999, undefined);
    // Another key has its own budget.
    f('/api/v1/write', 3_000, 0);
    // Once the interval passed, the next message is written and says how many it stands for.
    f('/api/v1/import', 6_000, 2);
    f('/api/v1/import', 20_000, 0);
  });

  it('forgets every key once more than maxKeys were seen', () => {
    let now = 0;
    const t = new KeyThrottle(1_000, () => now, 2);
    expect([t.take('a'), t.take('b'), t.take('a')]).toEqual([0, 0, undefined]);
    expect(t.take('c')).toBe(0); // the map was full: it starts over
    expect(t.take('a')).toBe(0);
    now = 10;
    expect(t.take('c')).toBeUndefined();
  });

  it('rejects a negative interval', () => {
    expect(() => new KeyThrottle(-1)).toThrow(/0 or more/);
  });
});
