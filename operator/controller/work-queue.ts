// A de-duplicating keyed work queue with per-key exponential backoff (client-go workqueue
// semantics): a key is queued at most once; a key re-added while being processed is queued
// again when its worker calls done(), so one key never runs on two workers at once.
import type { Clock } from '../runtime/clock.ts';

/** BackoffOptions: delay = min(baseMs * 2^failures, maxMs). */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** WorkQueue hands keys to workers. Safe for any number of concurrent get() callers. */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #backoff: BackoffOptions;
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Map<string, { at: number; handle: unknown }>();
  readonly #waiters: ((key: string | undefined) => void)[] = [];
  #shutDown = false;

  constructor(clock: Clock, backoff: BackoffOptions) {
    this.#clock = clock;
    this.#backoff = backoff;
  }

  /** length is the number of keys waiting for a worker. */
  get length(): number {
    return this.#queue.length;
  }

  /** add queues a key unless it is already waiting. */
  add(key: string): void {
    if (this.#shutDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      waiter(key);
    } else {
      this.#queue.push(key);
    }
  }

  /** addAfter queues a key after ms; an earlier pending timer for the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shutDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.#clock.now() + ms;
    const pending = this.#timers.get(key);
    if (pending !== undefined && pending.at <= at) return;
    if (pending !== undefined) this.#clock.clearTimeout(pending.handle);
    const handle = this.#clock.setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, ms);
    this.#timers.set(key, { at, handle });
  }

  /** addRateLimited re-queues a failed key after its backoff delay; returns the delay. */
  addRateLimited(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const delay = Math.min(this.#backoff.baseMs * 2 ** failures, this.#backoff.maxMs);
    this.addAfter(key, delay);
    return delay;
  }

  /** forget resets the backoff of a key (call after a successful run). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** failures is the number of consecutive failures recorded for a key. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** get waits for the next key; undefined once the queue is shut down. Call done(key) after. */
  get(): Promise<string | undefined> {
    if (this.#shutDown) return Promise.resolve(undefined);
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** done marks a key processed; if it was re-added meanwhile it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key)) {
      this.#dirty.delete(key);
      this.add(key);
    }
  }

  /** shutDown releases waiting workers and drops pending timers. */
  shutDown(): void {
    this.#shutDown = true;
    for (const t of this.#timers.values()) this.#clock.clearTimeout(t.handle);
    this.#timers.clear();
    for (const w of this.#waiters.splice(0)) w(undefined);
  }
}
