import type { Delay, Now } from './clock.ts';

/** TokenBucketOptions configures a TokenBucket. */
export interface TokenBucketOptions {
  /** bytesPerSecond is the sustained rate; must be > 0. */
  readonly bytesPerSecond: number;
  /** burstBytes is how many bytes may pass at once after an idle period; default one second's worth. */
  readonly burstBytes?: number;
  readonly now: Now;
  readonly delay: Delay;
}

/**
 * TokenBucket limits the combined byte rate of any number of concurrent streams
 * (`-maxBytesPerSecond` is a limit over all workers). take(n) grants n bytes at once and puts
 * the bucket in debt when it lacks tokens; the caller then waits until the debt is repaid, so
 * chunks larger than the burst still pass and the long-run rate stays exact. Callers are served
 * in the order they call take (each waits for the debt that includes its own bytes).
 */
export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: Now;
  readonly #delay: Delay;
  #tokens: number;
  #last: number;

  constructor(opts: TokenBucketOptions) {
    if (!(opts.bytesPerSecond > 0) || !Number.isFinite(opts.bytesPerSecond)) {
      throw new RangeError(`bytes per second must be a positive number, got ${opts.bytesPerSecond}`);
    }
    this.#rate = opts.bytesPerSecond;
    this.#burst = opts.burstBytes ?? opts.bytesPerSecond;
    this.#now = opts.now;
    this.#delay = opts.delay;
    this.#tokens = this.#burst;
    this.#last = opts.now();
  }

  /** take waits until `n` bytes may pass. It rejects when `signal` aborts (the bytes stay spent). */
  async take(n: number, signal?: AbortSignal): Promise<void> {
    this.#refill();
    this.#tokens -= n;
    if (this.#tokens >= 0) return;
    const waitMs = Math.ceil((-this.#tokens / this.#rate) * 1000);
    await this.#delay(waitMs, signal);
  }

  #refill(): void {
    const t = this.#now();
    const elapsed = Math.max(0, t - this.#last);
    this.#last = t;
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed / 1000) * this.#rate);
  }
}
