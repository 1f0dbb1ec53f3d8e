/**
 * BufferSource is what a flush reads from a buffer: its series and their samples.
 */
export interface BufferSource {
  readonly rows: number;
  /** seriesIds returns the IDs of all series in the buffer, ascending. */
  seriesIds(): Float64Array;
  /** rowsOf returns how many samples series id has here (0 when none). */
  rowsOf(id: number): number;
  /** copySeries appends the samples of series id to outTs/outVals from off (arrival order); returns the count. */
  copySeries(id: number, outTs: Float64Array, outVals: Float64Array, off: number): number;
}

/** SharedBufferData is a sealed buffer's memory as handed to a background thread (no copy). */
export interface SharedBufferData {
  readonly rows: number;
  readonly slots: number;
  readonly ts: Float64Array;
  readonly vals: Float64Array;
  readonly next: Int32Array;
  readonly slotIds: Float64Array;
  readonly slotHead: Int32Array;
  readonly slotRows: Uint32Array;
}

function sharedF64(n: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(n * 8));
}

function sharedI32(n: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(n * 4));
}

function sharedU32(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(n * 4));
}

/**
 * RawBuffer holds freshly written samples before they become a part: three parallel typed arrays
 * (timestamp, value, index of the series' next row) plus, per series in the buffer (a "slot"),
 * the head and tail of its row chain. Appending is O(1) with no allocation per sample; reading
 * one series walks its chain. The arrays live in SharedArrayBuffers so a background thread can
 * write a sealed buffer into a part while the main thread still serves searches from it.
 * One buffer per flush generation: the write path appends to the active one; sealed ones are
 * read-only.
 */
export class RawBuffer implements BufferSource {
  /** gen identifies this buffer; series refs cache (gen, slot) to skip the slot lookup. */
  readonly gen: number;
  readonly #maxRows: number;
  rows = 0;
  slots = 0;
  #ts: Float64Array;
  #vals: Float64Array;
  #next: Int32Array;
  #slotIds: Float64Array;
  #slotHead: Int32Array;
  #slotTail: Int32Array;
  #slotRows: Uint32Array;
  readonly #idToSlot = new Map<number, number>();

  /** maxRows is where growth stops doubling (the flush size); the buffer can still grow past it. */
  constructor(gen: number, maxRows = 1 << 20, initialRows = 1024, initialSlots = 256) {
    this.gen = gen;
    this.#maxRows = maxRows;
    const rows = Math.min(initialRows, maxRows);
    this.#ts = sharedF64(rows);
    this.#vals = sharedF64(rows);
    this.#next = sharedI32(rows);
    this.#slotIds = sharedF64(initialSlots);
    this.#slotHead = sharedI32(initialSlots);
    this.#slotTail = new Int32Array(initialSlots);
    this.#slotRows = sharedU32(initialSlots);
  }

  /** slotOf returns the slot of series id, creating it when absent. */
  slotOf(id: number): number {
    const s = this.#idToSlot.get(id);
    if (s !== undefined) return s;
    if (this.slots === this.#slotIds.length) this.#growSlots();
    const slot = this.slots++;
    this.#slotIds[slot] = id;
    this.#slotHead[slot] = -1;
    this.#slotTail[slot] = -1;
    this.#slotRows[slot] = 0;
    this.#idToSlot.set(id, slot);
    return slot;
  }

  /** append adds one sample to a slot's chain. */
  append(slot: number, ts: number, value: number): void {
    const i = this.rows;
    if (i === this.#ts.length) this.#growRows();
    this.#ts[i] = ts;
    this.#vals[i] = value;
    this.#next[i] = -1;
    const tail = this.#slotTail[slot]!;
    if (tail < 0) this.#slotHead[slot] = i;
    else this.#next[tail] = i;
    this.#slotTail[slot] = i;
    this.#slotRows[slot]!++;
    this.rows = i + 1;
  }

  #growRows(): void {
    const old = this.#ts.length;
    // Doubling stops at maxRows, so a buffer flushed at maxRows never holds twice that.
    const cap = old < this.#maxRows ? Math.min(old * 2, this.#maxRows) : old + (old >> 2);
    const ts = sharedF64(cap);
    ts.set(this.#ts);
    const vals = sharedF64(cap);
    vals.set(this.#vals);
    const next = sharedI32(cap);
    next.set(this.#next);
    this.#ts = ts;
    this.#vals = vals;
    this.#next = next;
  }

  #growSlots(): void {
    const cap = this.#slotIds.length * 2;
    const ids = sharedF64(cap);
    ids.set(this.#slotIds);
    const head = sharedI32(cap);
    head.set(this.#slotHead);
    const tail = new Int32Array(cap);
    tail.set(this.#slotTail);
    const rows = sharedU32(cap);
    rows.set(this.#slotRows);
    this.#slotIds = ids;
    this.#slotHead = head;
    this.#slotTail = tail;
    this.#slotRows = rows;
  }

  rowsOf(id: number): number {
    const s = this.#idToSlot.get(id);
    return s === undefined ? 0 : this.#slotRows[s]!;
  }

  copySeries(id: number, outTs: Float64Array, outVals: Float64Array, off: number): number {
    const s = this.#idToSlot.get(id);
    return s === undefined ? 0 : copyChain(this.#slotHead[s]!, this.#next, this.#ts, this.#vals, outTs, outVals, off);
  }

  seriesIds(): Float64Array {
    return this.#slotIds.slice(0, this.slots).sort();
  }

  /** share returns the buffer's memory for a background thread; the buffer must be sealed. */
  share(): SharedBufferData {
    return {
      rows: this.rows, slots: this.slots, ts: this.#ts, vals: this.#vals, next: this.#next,
      slotIds: this.#slotIds, slotHead: this.#slotHead, slotRows: this.#slotRows,
    };
  }

  /** bytes is the memory held by the arrays. */
  get bytes(): number {
    return this.#ts.length * 20 + this.#slotIds.length * 24 + this.slots * 40;
  }
}

function copyChain(head: number, next: Int32Array, ts: Float64Array, vals: Float64Array, outTs: Float64Array, outVals: Float64Array, off: number): number {
  let n = 0;
  for (let i = head; i >= 0; i = next[i]!) {
    outTs[off + n] = ts[i]!;
    outVals[off + n] = vals[i]!;
    n++;
  }
  return n;
}

/** SharedBufferView reads a buffer shared by another thread (see RawBuffer.share). */
export class SharedBufferView implements BufferSource {
  readonly #d: SharedBufferData;
  readonly #idToSlot = new Map<number, number>();

  constructor(d: SharedBufferData) {
    this.#d = d;
    for (let s = 0; s < d.slots; s++) this.#idToSlot.set(d.slotIds[s]!, s);
  }

  get rows(): number {
    return this.#d.rows;
  }

  seriesIds(): Float64Array {
    return this.#d.slotIds.slice(0, this.#d.slots).sort();
  }

  rowsOf(id: number): number {
    const s = this.#idToSlot.get(id);
    return s === undefined ? 0 : this.#d.slotRows[s]!;
  }

  copySeries(id: number, outTs: Float64Array, outVals: Float64Array, off: number): number {
    const s = this.#idToSlot.get(id);
    const d = this.#d;
    return s === undefined ? 0 : copyChain(d.slotHead[s]!, d.next, d.ts, d.vals, outTs, outVals, off);
  }
}
