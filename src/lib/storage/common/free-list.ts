/**
 * FreeList keeps objects given back for reuse, at most maxKept of them, and hands them out again
 * before it makes new ones: the store's pools of search buffers (series-scratch.ts ScratchPool,
 * span-read.ts ReadBufferPool) are FreeLists that add what they accept back. An object given back
 * must no longer be used by its giver; one already kept is not kept twice.
 */
export class FreeList<T> {
  readonly #free: T[] = [];
  readonly #make: () => T;
  readonly #maxKept: number;

  constructor(make: () => T, maxKept: number) {
    this.#make = make;
    this.#maxKept = maxKept;
  }

  /** take returns a kept object when there is one, else a new one. */
  take(): T {
    return this.#free.pop() ?? this.#make();
  }

  /** give keeps x for the next take, unless maxKept are kept already. */
  give(x: T): void {
    if (this.#free.length < this.#maxKept && !this.#free.includes(x)) this.#free.push(x);
  }
}
