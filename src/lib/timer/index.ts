/**
 * MAX_TIMER_MS is the longest delay setTimeout/setInterval honour (2^31-1 ms, about 24.8 days);
 * Node fires a longer one after 1 ms, so a user's "720h" would act at once.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** timerMs clamps a delay from a flag or argument into what timers can wait. */
export function timerMs(ms: number): number {
  return Math.max(0, Math.min(ms, MAX_TIMER_MS));
}
