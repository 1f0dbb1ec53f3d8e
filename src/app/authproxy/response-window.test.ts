import { describe, expect, it } from 'vitest';
import { responseWindow } from './response-window.ts';

describe('responseWindow', () => {
  it('splits the budget over the concurrency limit, within 64 KiB and 1 MiB', () => {
    const f = (budget: number | undefined, max: number, want: number) => expect(responseWindow(budget, max)).toBe(want);
    f(undefined, 1000, 1 << 20);
    f(8 << 30, 1000, 1 << 20);
    f(256 << 20, 1000, Math.floor((256 << 20) / 1000));
    f(1 << 20, 1000, 64 << 10);
  });
});
