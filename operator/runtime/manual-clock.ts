// ManualClock: a Clock whose time moves only when told (tests of timing logic).
import type { Clock } from './clock.ts';

/** ManualClock is a Clock for tests: timers fire only inside advance(). Not for concurrent use. */
export class ManualClock implements Clock {
  #now: number;
  #timers: { at: number; fn: () => void; id: number }[] = [];
  #nextId = 1;

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.#timers.push({ at: this.#now + Math.max(0, ms), fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }

  /** advance moves time forward, firing due timers in time order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (due === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.fn();
    }
    this.#now = end;
  }

  /** pending is the number of timers not yet fired. */
  get pending(): number {
    return this.#timers.length;
  }
}
