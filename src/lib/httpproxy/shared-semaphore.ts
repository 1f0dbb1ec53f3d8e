/** Acquisition is a pending or settled request for a slot. */
export interface Acquisition {
  /** granted resolves true when the slot is held, false when the wait timed out or was cancelled. */
  readonly granted: Promise<boolean>;
  /** cancel withdraws a queued acquirer (granted resolves false at once); no effect once settled. */
  cancel(): void;
}

// Int32 cells of a SharedSemaphore's buffer.
const CURRENT = 0;
const CAPACITY = 1;
const WAITING = 2;
const CELLS = 3;

const GRANTED: Acquisition = { granted: Promise.resolve(true), cancel: () => {} };
const DENIED: Acquisition = { granted: Promise.resolve(false), cancel: () => {} };

/**
 * SharedSemaphore limits concurrent holders to `capacity`; acquirers beyond it wait for up to a
 * given time. Its counts live in a SharedArrayBuffer, so threads of one process (each with its own
 * event loop) share one limit exactly: the holders of all threads together never exceed the
 * capacity. Waiters sleep with Atomics.waitAsync on the holder count and are woken in the order they
 * started waiting (an address's waiter list is FIFO); a requester arriving while a released slot is
 * being handed over may take it first, so the order is FIFO among requesters that had to wait.
 * Capacity may change at any time: holders above a lowered capacity keep their slots, and newcomers
 * wait until the count drops below it. Create it once with `create` and pass `buffer` to the other
 * threads, which wrap it with `new SharedSemaphore(buffer)`.
 */
export class SharedSemaphore {
  readonly buffer: SharedArrayBuffer;
  readonly #a: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    if (buffer.byteLength < CELLS * 4) throw new RangeError(`cannot use a ${buffer.byteLength}-byte buffer as a semaphore: it needs ${CELLS * 4} bytes`);
    this.buffer = buffer;
    this.#a = new Int32Array(buffer, 0, CELLS);
  }

  /** create makes a semaphore with no holders. */
  static create(capacity: number): SharedSemaphore {
    const s = new SharedSemaphore(new SharedArrayBuffer(CELLS * 4));
    Atomics.store(s.#a, CAPACITY, capacity);
    return s;
  }

  get capacity(): number {
    return Atomics.load(this.#a, CAPACITY);
  }

  /** current is the number of slots held, by all threads. */
  get current(): number {
    return Atomics.load(this.#a, CURRENT);
  }

  /** waiting is the number of acquirers of all threads queued (a cancelled one until its wait ends). */
  get waiting(): number {
    return Atomics.load(this.#a, WAITING);
  }

  /** tryAcquire takes a slot when one is free and nobody is queued. */
  tryAcquire(): boolean {
    return Atomics.load(this.#a, WAITING) === 0 && this.#take();
  }

  /** acquire takes a slot now or queues for up to waitMs (0: no waiting). */
  acquire(waitMs: number): Acquisition {
    if (this.tryAcquire()) return GRANTED;
    if (waitMs <= 0) return DENIED;
    let cancelled = false;
    let resolveCancel: (v: boolean) => void = () => {};
    const onCancel = new Promise<boolean>((resolve) => {
      resolveCancel = resolve;
    });
    const waited = this.#wait(performance.now() + waitMs, () => cancelled);
    return {
      granted: Promise.race([waited, onCancel]),
      cancel: () => {
        cancelled = true;
        resolveCancel(false);
      },
    };
  }

  /** release frees a slot and wakes the longest-waiting acquirer of any thread. */
  release(): void {
    Atomics.sub(this.#a, CURRENT, 1);
    // A waiter registers in WAITING before it reads CURRENT: either it is counted here or it sees
    // the lowered count and does not sleep.
    if (Atomics.load(this.#a, WAITING) > 0) Atomics.notify(this.#a, CURRENT, 1);
  }

  /** setCapacity changes the limit for all threads and wakes waiters that now fit. */
  setCapacity(capacity: number): void {
    Atomics.store(this.#a, CAPACITY, capacity);
    Atomics.notify(this.#a, CURRENT);
  }

  #take(): boolean {
    const a = this.#a;
    for (;;) {
      const c = Atomics.load(a, CURRENT);
      if (c >= Atomics.load(a, CAPACITY)) return false;
      if (Atomics.compareExchange(a, CURRENT, c, c + 1) === c) return true;
    }
  }

  async #wait(deadline: number, cancelled: () => boolean): Promise<boolean> {
    const a = this.#a;
    Atomics.add(a, WAITING, 1);
    try {
      for (;;) {
        if (this.#take()) return true;
        // Sleep only while the count is still the full one #take saw; a slot freed since is retried.
        const c = Atomics.load(a, CURRENT);
        if (c < Atomics.load(a, CAPACITY)) continue;
        const left = deadline - performance.now();
        if (left <= 0) return false;
        const w = Atomics.waitAsync(a, CURRENT, c, left);
        let outcome;
        if (w.async) {
          // A pending waitAsync does not keep the event loop alive; a timer for the same time does.
          const keepAlive = setTimeout(() => {}, Math.ceil(left) + 1);
          outcome = await w.value;
          clearTimeout(keepAlive);
        } else {
          outcome = w.value;
        }
        if (cancelled()) {
          // A wake-up meant for this waiter passes to the next one.
          if (outcome === 'ok') Atomics.notify(a, CURRENT, 1);
          return false;
        }
        if (outcome === 'timed-out') return false;
      }
    } finally {
      Atomics.sub(a, WAITING, 1);
    }
  }
}
