import { describe, expect, it } from 'vitest';
import { responseWindow } from './response-window.ts';

describe('responseWindow', () => {
  it('splits the budget over the concurrency limit, within 64 KiB and 256 KiB', () => {
    const f = (budget: number | undefined, max: number, want: number) => expect(responseWindow(budget, max)).toBe(want);
    f(undefined, 1000, 256 << 10);
    f(8 * 2 ** 30, 1000, 256 << 10);
    f(128 << 20, 1000, Math.floor((128 << 20) / 1000));
    f(1 << 20, 1000, 64 << 10);
  });
});
