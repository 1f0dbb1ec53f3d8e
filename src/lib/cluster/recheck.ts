import type { NodeHealth } from './health.ts';
import type { Timers } from './call.ts';

export interface RecheckerOptions {
  readonly health: NodeHealth;
  readonly now: () => number;
  readonly timers: Timers;
  /** check asks the node something it can only answer when it works; it must settle in bounded time. */
  readonly check: () => Promise<void>;
  /** onUp is called when a re-check brought the node back into rotation. */
  readonly onUp: () => void;
}

/**
 * Rechecker brings a node that left rotation back by itself: once its back-off has passed (a
 * timer, no traffic needed) it runs check; success puts the node back in rotation, failure
 * doubles the back-off and waits again. Call schedule() whenever the node may have left rotation.
 */
export class Rechecker {
  readonly #o: RecheckerOptions;
  #timer: unknown;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(o: RecheckerOptions) {
    this.#o = o;
  }

  /** schedule arms the timer for the node's next re-check, unless it is up or one is armed or running. */
  schedule(): void {
    if (this.#closed || this.#o.health.isUp || this.#timer !== undefined || this.#running !== undefined) return;
    const wait = Math.max(0, this.#o.health.retryAt - this.#o.now());
    const t = this.#o.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#run();
    }, wait);
    (t as { unref?: () => void } | undefined)?.unref?.();
    this.#timer = t;
  }

  #run(): void {
    const h = this.#o.health;
    if (this.#closed || !h.claimProbe(this.#o.now())) return this.schedule();
    this.#running = this.#o.check().then(
      () => {
        if (h.succeeded()) this.#o.onUp();
      },
      () => void h.failed(this.#o.now()),
    ).finally(() => {
      this.#running = undefined;
      this.schedule();
    });
  }

  /** idle resolves once a re-check in flight has finished. */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** close stops re-checking (at shutdown). */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#o.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
