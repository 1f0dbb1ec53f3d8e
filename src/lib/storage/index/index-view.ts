import { ArrayCursor, MergedCursor, PartCursor, type ItemCursor } from './cursor.ts';
import type { IndexPart } from './index-part.ts';

/**
 * IndexView is a consistent read-only view of the index: the parts and in-memory tables live
 * when it was taken. It holds a reference on every part; call release() when done (searches do
 * it in a finally block).
 */
export class IndexView {
  readonly #parts: readonly IndexPart[];
  readonly #mems: readonly (readonly string[])[];
  #released = false;

  constructor(parts: readonly IndexPart[], mems: readonly (readonly string[])[]) {
    this.#parts = parts;
    this.#mems = mems;
    for (const p of parts) p.acquire();
  }

  /** cursor returns a cursor over the union of all sources, positioned at the first item. */
  cursor(): ItemCursor {
    const cs: ItemCursor[] = [];
    for (const p of this.#parts) cs.push(new PartCursor(p));
    for (const m of this.#mems) cs.push(new ArrayCursor(m));
    return new MergedCursor(cs);
  }

  /**
   * scanPrefix calls fn for every item starting with prefix, in order, until fn returns false.
   * The cursor is shared with fn's caller through `c` so fn may skip ahead with c.seek().
   */
  scanPrefix(prefix: string, fn: (item: string, c: ItemCursor) => boolean | void): void {
    const c = this.cursor();
    c.seek(prefix);
    for (let item = c.current; item !== undefined && item.startsWith(prefix); item = c.current) {
      if (fn(item, c) === false) return;
      // fn may have moved the cursor with seek(); only step when it did not.
      if (c.current === item) c.next();
    }
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    for (const p of this.#parts) p.release();
  }
}
