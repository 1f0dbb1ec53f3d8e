import { type IndexPart, lowerBound } from './index-part.ts';

/** ItemCursor walks one sorted source of items. `current` is undefined past the end. */
export interface ItemCursor {
  readonly current: string | undefined;
  /** seek moves to the first item >= key (forward or backward). */
  seek(key: string): void;
  next(): void;
}

/** ArrayCursor walks a sorted array (an in-memory table snapshot). */
export class ArrayCursor implements ItemCursor {
  readonly #items: readonly string[];
  #i = 0;

  constructor(items: readonly string[]) {
    this.#items = items;
  }

  get current(): string | undefined {
    return this.#items[this.#i];
  }

  seek(key: string): void {
    this.#i = lowerBound(this.#items, key);
  }

  next(): void {
    this.#i++;
  }
}

/** PartCursor walks the blocks of one index part. */
export class PartCursor implements ItemCursor {
  readonly #part: IndexPart;
  #block = 0;
  #items: string[] = [];
  #i = 0;

  constructor(part: IndexPart) {
    this.#part = part;
    if (part.blocksCount > 0) this.#items = part.block(0);
  }

  get current(): string | undefined {
    return this.#items[this.#i];
  }

  seek(key: string): void {
    if (this.#part.blocksCount === 0) return;
    const b = this.#part.findBlock(key);
    if (b !== this.#block) {
      this.#block = b;
      this.#items = this.#part.block(b);
    }
    this.#i = lowerBound(this.#items, key);
    this.#skipEmpty();
  }

  next(): void {
    this.#i++;
    this.#skipEmpty();
  }

  #skipEmpty(): void {
    while (this.#i >= this.#items.length && this.#block + 1 < this.#part.blocksCount) {
      this.#block++;
      this.#items = this.#part.block(this.#block);
      this.#i = 0;
    }
  }
}

/**
 * MergedCursor walks the union of several sorted sources in order; an item present in several
 * sources is returned once.
 */
export class MergedCursor implements ItemCursor {
  readonly #cursors: ItemCursor[];
  current: string | undefined;

  constructor(cursors: ItemCursor[]) {
    this.#cursors = cursors;
    this.#pick();
  }

  #pick(): void {
    let min: string | undefined;
    for (const c of this.#cursors) {
      const v = c.current;
      if (v !== undefined && (min === undefined || v < min)) min = v;
    }
    this.current = min;
  }

  seek(key: string): void {
    for (const c of this.#cursors) c.seek(key);
    this.#pick();
  }

  next(): void {
    const cur = this.current;
    if (cur === undefined) return;
    for (const c of this.#cursors) if (c.current === cur) c.next();
    this.#pick();
  }
}
