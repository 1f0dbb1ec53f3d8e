import { ArrayCursor, MergedCursor, PartCursor, type ItemCursor } from './cursor.ts';
import { concatRuns, unionIds } from './id-sets.ts';
import { type IndexPart, lowerBound } from './index-part.ts';
import { decodeText, readIdKey } from './keys.ts';

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

  /**
   * idsWithPrefix returns the sorted, distinct series IDs of the items that are prefix followed
   * by an 8-byte ID key (per-day items of a label value, of a day). It reads each source's sorted
   * blocks directly: no per-item merging of sources, no per-item prefix test.
   */
  idsWithPrefix(prefix: string): Float64Array {
    const sets: Float64Array[] = [];
    for (const p of this.#parts) sets.push(concatRuns(partRuns(p, prefix)));
    for (const m of this.#mems) {
      const out: number[] = [];
      appendIds(m, prefix, prefix + '\u0100', out);
      sets.push(Float64Array.from(out));
    }
    return unionIds(sets);
  }

  /**
   * idRunsBySource returns the IDs of idsWithPrefix(prefix) as one list of ascending runs (each
   * run sorted, each past the one before) per source that holds any, in no order between the
   * lists: a part's runs are views of its cached blocks' IDs, with no array of their size
   * allocated (large typed arrays cost page faults on every search); an in-memory table's are one
   * array of its own. Callers mark (markRuns) or intersect (intersectSourceRuns) them without a
   * union of the sources: with several index parts, every value's IDs of every part were copied
   * and merged first, per value of a regexp (50 values of ~170 series each for
   * instance=~"host-000[0-4].*" at 100k series). Read them only while the view is held, and keep
   * nothing of them.
   */
  idRunsBySource(prefix: string): Float64Array[][] {
    const out: Float64Array[][] = [];
    for (const p of this.#parts) {
      const runs = partRuns(p, prefix);
      if (runs.length > 0) out.push(runs);
    }
    for (const m of this.#mems) {
      const ids: number[] = [];
      appendIds(m, prefix, prefix + '\u0100', ids);
      if (ids.length > 0) out.push([Float64Array.from(ids)]);
    }
    return out;
  }

  /**
   * ascendingRunsBySource returns the IDs of the items that are prefix, more bytes and an 8-byte
   * ID key, where prefix may end inside a value (the values of one label on one day starting with
   * a common head: a regexp's `host-0000.*`): per source, runs that each ascend, split where the
   * next value's IDs start lower than the last, so the runs of one list need not follow each
   * other. Views of cached blocks as idRunsBySource's; the same rules for holding them.
   */
  ascendingRunsBySource(prefix: string): Float64Array[][] {
    const out: Float64Array[][] = [];
    for (const p of this.#parts) {
      const runs: Float64Array[] = [];
      for (const run of partRuns(p, prefix)) splitAscending(run, runs);
      if (runs.length > 0) out.push(runs);
    }
    for (const m of this.#mems) {
      const ids: number[] = [];
      appendIds(m, prefix, prefix + '\u0100', ids);
      if (ids.length === 0) continue;
      const runs: Float64Array[] = [];
      splitAscending(Float64Array.from(ids), runs);
      out.push(runs);
    }
    return out;
  }

  /**
   * distinctTexts returns, per source, the distinct texts that the items starting with prefix
   * hold right after it (the label names of one day, the values of one label on a day), in item
   * order; one list per source. A part's lists are memoized with it (parts never change).
   */
  distinctTexts(prefix: string): string[][] {
    const out: string[][] = [];
    for (const p of this.#parts) out.push(p.texts(prefix, () => textsAfter(new PartCursor(p), prefix)));
    for (const m of this.#mems) if (m.length > 0) out.push(textsAfter(new ArrayCursor(m), prefix));
    return out;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    for (const p of this.#parts) p.release();
  }
}

// partRuns returns the IDs of part p's items that are prefix + ID key, as runs of its blocks'
// decoded tail IDs (items are sorted, so the IDs ascend).
function partRuns(p: IndexPart, prefix: string): Float64Array[] {
  // Items are binary strings (chars <= 0xff), so every item with the prefix sorts below this.
  const upper = prefix + '\u0100';
  const runs: Float64Array[] = [];
  for (let b = p.blocksCount > 0 ? p.findBlock(prefix) : 0; b < p.blocksCount; b++) {
    const items = p.block(b);
    const from = lowerBound(items, prefix);
    const to = lowerBound(items, upper, from);
    if (to > from) runs.push(p.blockIds(b).subarray(from, to));
    if (to < items.length) break;
  }
  return runs;
}

// splitAscending appends run to out as views that each ascend strictly.
function splitAscending(run: Float64Array, out: Float64Array[]): void {
  let start = 0;
  for (let k = 1; k < run.length; k++) {
    if (run[k]! <= run[k - 1]!) {
      out.push(run.subarray(start, k));
      start = k;
    }
  }
  if (run.length > start) out.push(start === 0 ? run : run.subarray(start));
}

// textsAfter lists the distinct encoded texts following prefix in the items of c, decoded: one
// seek per text, past all its items.
function textsAfter(c: ItemCursor, prefix: string): string[] {
  const out: string[] = [];
  c.seek(prefix);
  for (let item = c.current; item !== undefined && item.startsWith(prefix); item = c.current) {
    const [text, end] = decodeText(item, prefix.length);
    out.push(text);
    // The text's 0x00 terminator is at end - 1; 0x01 there sorts after all its items.
    c.seek(item.slice(0, end - 1) + '\x01');
  }
  return out;
}


// appendIds appends the IDs of the items of sorted array items in [prefix, upper) to out and
// returns whether the range may go on past the end of the array (in the next block).
function appendIds(items: readonly string[], prefix: string, upper: string, out: number[]): boolean {
  const from = lowerBound(items, prefix);
  const to = lowerBound(items, upper, from);
  // The ID key ends each item: right after prefix, or after the rest of a value prefix ends inside.
  for (let i = from; i < to; i++) out.push(readIdKey(items[i]!, items[i]!.length - 8));
  return to === items.length;
}
