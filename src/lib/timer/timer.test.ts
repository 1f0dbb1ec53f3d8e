import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, timerMs } from './index.ts';

describe('timerMs', () => {
  it('keeps delays timers can honour and clamps the rest', () => {
    expect(timerMs(1500)).toBe(1500);
    expect(timerMs(720 * 3_600_000)).toBe(MAX_TIMER_MS);
    expect(timerMs(-5)).toBe(0);
  });
});
