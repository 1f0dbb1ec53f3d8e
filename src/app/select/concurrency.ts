import { timerMs } from '../../lib/timer/index.ts';

/** QueueTimeoutError: a request waited -search.maxQueueDuration for a slot (429). */
export class QueueTimeoutError extends Error {}

/**
 * ConcurrencyLimiter admits at most `limit` requests at once; the others wait in FIFO order for up
 * to maxWaitMs, then fail with QueueTimeoutError. An aborted waiter leaves the queue at once.
 */
export class ConcurrencyLimiter {
  readonly limit: number;
  #active = 0;
  readonly #waiters: Array<{ grant: () => void }> = [];

  constructor(limit: number) {
    if (!(limit >= 1)) throw new Error(`concurrency limit must be at least 1, got ${limit}`);
    this.limit = limit;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** acquire resolves with a release function once a slot is free. */
  acquire(maxWaitMs: number, signal: AbortSignal): Promise<() => void> {
    if (this.#active < this.limit && this.#waiters.length === 0) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          cleanup();
          this.#active++;
          resolve(this.#releaser());
        },
      };
      const leave = (err: Error) => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        cleanup();
        reject(err);
      };
      const timer = setTimeout(() => leave(new QueueTimeoutError(`cannot start the request: ${this.limit} requests are running and it waited ${maxWaitMs}ms in the queue; raise -search.maxConcurrentRequests or -search.maxQueueDuration, or reduce load`)), timerMs(maxWaitMs));
      const onAbort = () => leave(signal.reason instanceof Error ? signal.reason : new Error('request canceled while queued'));
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      this.#waiters.shift()?.grant();
    };
  }
}
