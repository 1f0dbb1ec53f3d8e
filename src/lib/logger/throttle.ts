/**
 * LevelThrottle caps messages per second for one level (-loggerErrorsPerSecondLimit,
 * -loggerWarnsPerSecondLimit). Suppressed messages are counted; `drain` returns and resets the
 * count of the second that ended, so the logger can report it once per second.
 */
export class LevelThrottle {
  readonly limit: number;
  readonly #now: () => number;
  #windowStart = 0;
  #inWindow = 0;
  #suppressed = 0;

  /** limit 0 disables throttling. now returns milliseconds. */
  constructor(limit: number, now: () => number) {
    this.limit = limit;
    this.#now = now;
  }

  /** allow reports whether one more message may be written now. */
  allow(): boolean {
    if (this.limit <= 0) return true;
    const t = this.#now();
    if (t - this.#windowStart >= 1000) {
      this.#windowStart = t;
      this.#inWindow = 0;
    }
    if (this.#inWindow < this.limit) {
      this.#inWindow++;
      return true;
    }
    this.#suppressed++;
    return false;
  }

  /** drain returns how many messages were suppressed since the last drain, and resets it. */
  drain(): number {
    const n = this.#suppressed;
    this.#suppressed = 0;
    return n;
  }
}
