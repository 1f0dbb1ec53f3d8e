import { timerMs } from '../timer/index.ts';

interface Waiter {
  resolve: (granted: boolean) => void;
  timer: NodeJS.Timeout | undefined;
  done: boolean;
}

/** Acquisition is a pending or settled request for a slot. */
export interface Acquisition {
  /** granted resolves true when the slot is held, false when the wait timed out or was cancelled. */
  readonly granted: Promise<boolean>;
  /** cancel withdraws a queued acquirer (granted resolves false); no effect once settled. */
  cancel(): void;
}

const GRANTED: Acquisition = { granted: Promise.resolve(true), cancel: () => {} };
const DENIED: Acquisition = { granted: Promise.resolve(false), cancel: () => {} };

/**
 * Semaphore limits concurrent holders to `capacity`; acquirers beyond it wait in FIFO order for
 * up to a given time. Event-loop only. Capacity may change at any time: holders above a lowered
 * capacity keep their slots, and newcomers wait until the count drops below it.
 */
export class Semaphore {
  #capacity: number;
  #current = 0;
  #live = 0;
  readonly #waiters: Waiter[] = [];
  #head = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** current is the number of slots held. */
  get current(): number {
    return this.#current;
  }

  /** waiting is the number of acquirers queued and not yet timed out or cancelled. */
  get waiting(): number {
    return this.#live;
  }

  /** tryAcquire takes a slot when one is free and nobody is queued. */
  tryAcquire(): boolean {
    if (this.#current < this.#capacity && this.#live === 0) {
      this.#current++;
      return true;
    }
    return false;
  }

  /** acquire takes a slot now or queues for up to waitMs (0: no waiting). */
  acquire(waitMs: number): Acquisition {
    if (this.tryAcquire()) return GRANTED;
    if (waitMs <= 0) return DENIED;
    const w: Waiter = { resolve: () => {}, timer: undefined, done: false };
    const granted = new Promise<boolean>((resolve) => {
      w.resolve = resolve;
    });
    w.timer = setTimeout(() => this.#settle(w, false), timerMs(waitMs));
    this.#waiters.push(w);
    this.#live++;
    return { granted, cancel: () => this.#settle(w, false) };
  }

  /** release frees a slot and hands it to the oldest live waiter. */
  release(): void {
    this.#current--;
    this.#wake();
  }

  /** setCapacity changes the limit and wakes waiters that now fit. */
  setCapacity(capacity: number): void {
    this.#capacity = capacity;
    this.#wake();
  }

  #settle(w: Waiter, granted: boolean): void {
    if (w.done) return;
    w.done = true;
    this.#live--;
    clearTimeout(w.timer);
    if (granted) this.#current++;
    else this.#compact();
    w.resolve(granted);
  }

  // Timed-out waiters stay queued until reached; drop them when they are most of the queue.
  #compact(): void {
    const queued = this.#waiters.length - this.#head;
    if (queued < 1024 || queued < 4 * this.#live) return;
    const live = this.#waiters.slice(this.#head).filter((x) => !x.done);
    this.#waiters.length = 0;
    this.#waiters.push(...live);
    this.#head = 0;
  }

  #wake(): void {
    while (this.#current < this.#capacity && this.#head < this.#waiters.length) {
      const w = this.#waiters[this.#head++]!;
      if (!w.done) this.#settle(w, true);
    }
    if (this.#head === this.#waiters.length) {
      this.#waiters.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#waiters.length) {
      this.#waiters.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
