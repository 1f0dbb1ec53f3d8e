/**
 * KeyThrottle lets at most one message per key through per interval, the way VictoriaMetrics'
 * `logger.WithThrottler(name, d)` keeps a flood of identical rejections (a misconfigured sender
 * retrying every second) from drowning the log. A key's message within intervalMs of the last one
 * written is dropped and counted; `take` for the next one written returns that count, so the line
 * can say how many it stands for. Unlike -loggerWarnsPerSecondLimit (one budget for the whole
 * process), one noisy key never silences another.
 */
export class KeyThrottle {
  readonly intervalMs: number;
  readonly #now: () => number;
  readonly #maxKeys: number;
  readonly #keys = new Map<string, { last: number; dropped: number }>();

  /** now returns milliseconds; maxKeys bounds the memory (past it every key starts over). */
  constructor(intervalMs: number, now: () => number = Date.now, maxKeys = 1024) {
    if (!(intervalMs >= 0)) throw new RangeError(`throttle interval must be 0 or more ms; got ${intervalMs}`);
    this.intervalMs = intervalMs;
    this.#now = now;
    this.#maxKeys = maxKeys;
  }

  /**
   * take returns undefined when a message for key must be dropped now; otherwise the message may be
   * written, and the result is how many messages of key were dropped since the previous one written.
   */
  take(key: string): number | undefined {
    const t = this.#now();
    const s = this.#keys.get(key);
    if (s === undefined) {
      if (this.#keys.size >= this.#maxKeys) this.#keys.clear();
      this.#keys.set(key, { last: t, dropped: 0 });
      return 0;
    }
    if (t - s.last < this.intervalMs) {
      s.dropped++;
      return undefined;
    }
    const dropped = s.dropped;
    s.last = t;
    s.dropped = 0;
    return dropped;
  }
}
