import { describe, expect, it } from 'vitest';
import { formatHumanSize } from './human-size.ts';

describe('formatHumanSize', () => {
  it('uses binary units with one decimal', () => {
    const f = (n: number, want: string) => expect(formatHumanSize(n)).toBe(want);
    f(0, '0 B');
    f(1023, '1023 B');
    f(1024, '1.0 KiB');
    f(318874, '311.4 KiB');
    f(1024 * 1024 - 1, '1.0 MiB');
    f(1.5 * 1024 ** 3, '1.5 GiB');
    f(2 * 1024 ** 4, '2.0 TiB');
    f(1024 ** 6 * 3, '3.0 EiB');
  });

  it('rejects negative and non-finite sizes', () => {
    expect(() => formatHumanSize(-1)).toThrow(RangeError);
    expect(() => formatHumanSize(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
