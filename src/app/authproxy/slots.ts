// Concurrency slots: every proxied request holds one -maxConcurrentRequests slot (shared by all
// threads) and one of its user's max_concurrent_requests slots while it is served.

import type { IncomingMessage } from 'node:http';
import { SharedSemaphore } from '../../lib/httpproxy/index.ts';
import * as m from './metrics.ts';
import type { UserState } from './state.ts';

/** SlotsOptions size the global limit; globalLimiter is another thread's semaphore buffer to share. */
export interface SlotsOptions {
  readonly maxConcurrentRequests: number;
  readonly maxQueueDurationMs: number;
  readonly globalLimiter?: SharedArrayBuffer | undefined;
}

/** ConcurrencySlots hands out the global and per-user slots; release gives back both. */
export class ConcurrencySlots {
  readonly global: SharedSemaphore;
  readonly #maxQueueDurationMs: number;

  constructor(o: SlotsOptions) {
    this.global = o.globalLimiter === undefined ? SharedSemaphore.create(o.maxConcurrentRequests) : new SharedSemaphore(o.globalLimiter);
    this.#maxQueueDurationMs = o.maxQueueDurationMs;
  }

  /** tryAcquire takes both slots if both are free now (the common case: no promise round trip). */
  tryAcquire(user: UserState): boolean {
    if (!this.global.tryAcquire()) return false;
    if (user.limiter.tryAcquire()) return true;
    this.global.release();
    return false;
  }

  /**
   * acquire waits for the global slot, then the user's, within one -maxQueueDuration budget (the
   * wait ends when the client goes away). It resolves undefined holding both, or, holding none,
   * the limit that was reached (for the 429's message; the limit's counter is incremented).
   */
  async acquire(user: UserState, raw: IncomingMessage): Promise<string | undefined> {
    if (this.global.tryAcquire()) {
      if (user.limiter.tryAcquire()) return undefined;
    } else if (!(await wait(this.global, this.#maxQueueDurationMs, raw))) {
      m.globalLimitReached.inc();
      return `-maxConcurrentRequests=${this.global.capacity}`;
    }
    const deadline = performance.now() + this.#maxQueueDurationMs;
    if (user.limiter.tryAcquire() || (await wait(user.limiter, deadline - performance.now(), raw))) return undefined;
    this.global.release();
    user.limitReached.inc();
    return user.unauthorized
      ? `the max_concurrent_requests of unauthorized_user (${user.limiter.capacity})`
      : `the concurrency limit of user ${JSON.stringify(user.cfg.label)} (${user.limiter.capacity})`;
  }

  /** release gives back the slots tryAcquire or acquire took. */
  release(user: UserState): void {
    user.limiter.release();
    this.global.release();
  }
}

async function wait(s: SharedSemaphore, waitMs: number, raw: IncomingMessage): Promise<boolean> {
  const a = s.acquire(waitMs);
  const onClose = () => a.cancel();
  raw.once('close', onClose);
  try {
    return await a.granted;
  } finally {
    raw.removeListener('close', onClose);
  }
}
