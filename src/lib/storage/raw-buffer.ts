/**
 * RawBuffer holds freshly written samples before they become a part: three parallel typed arrays
 * (timestamp, value, index of the series' next row) plus, per series in the buffer (a "slot"),
 * the head and tail of its row chain. Appending is O(1) with no allocation per sample; reading
 * one series walks its chain; a flush visits series in ID order. One buffer per flush
 * generation: the write path appends to the active buffer, sealed ones are read-only.
 */
export class RawBuffer {
  /** gen identifies this buffer; series refs cache (gen, slot) to skip the slot lookup. */
  readonly gen: number;
  rows = 0;
  slots = 0;
  minTs = Infinity;
  maxTs = -Infinity;
  #ts: Float64Array;
  #vals: Float64Array;
  #next: Int32Array;
  #slotIds: Float64Array;
  #slotHead: Int32Array;
  #slotTail: Int32Array;
  #slotRows: Uint32Array;
  readonly #idToSlot = new Map<number, number>();

  constructor(gen: number, initialRows = 1024, initialSlots = 256) {
    this.gen = gen;
    this.#ts = new Float64Array(initialRows);
    this.#vals = new Float64Array(initialRows);
    this.#next = new Int32Array(initialRows);
    this.#slotIds = new Float64Array(initialSlots);
    this.#slotHead = new Int32Array(initialSlots);
    this.#slotTail = new Int32Array(initialSlots);
    this.#slotRows = new Uint32Array(initialSlots);
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
    if (ts < this.minTs) this.minTs = ts;
    if (ts > this.maxTs) this.maxTs = ts;
  }

  #growRows(): void {
    const cap = this.#ts.length * 2;
    const ts = new Float64Array(cap);
    ts.set(this.#ts);
    const vals = new Float64Array(cap);
    vals.set(this.#vals);
    const next = new Int32Array(cap);
    next.set(this.#next);
    this.#ts = ts;
    this.#vals = vals;
    this.#next = next;
  }

  #growSlots(): void {
    const cap = this.#slotIds.length * 2;
    const grow = <T extends Float64Array | Int32Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.#slotIds = grow(this.#slotIds, (n) => new Float64Array(n));
    this.#slotHead = grow(this.#slotHead, (n) => new Int32Array(n));
    this.#slotTail = grow(this.#slotTail, (n) => new Int32Array(n));
    this.#slotRows = grow(this.#slotRows, (n) => new Uint32Array(n));
  }

  /** hasSeries reports whether the buffer holds samples of series id. */
  hasSeries(id: number): boolean {
    return this.#idToSlot.has(id);
  }

  /** rowsOf returns how many samples series id has here (0 when none). */
  rowsOf(id: number): number {
    const s = this.#idToSlot.get(id);
    return s === undefined ? 0 : this.#slotRows[s]!;
  }

  /**
   * copySeries appends the samples of series id to outTs/outVals from off (in arrival order) and
   * returns how many it copied; the caller sized the arrays with rowsOf().
   */
  copySeries(id: number, outTs: Float64Array, outVals: Float64Array, off: number): number {
    const s = this.#idToSlot.get(id);
    if (s === undefined) return 0;
    let n = 0;
    for (let i = this.#slotHead[s]!; i >= 0; i = this.#next[i]!) {
      outTs[off + n] = this.#ts[i]!;
      outVals[off + n] = this.#vals[i]!;
      n++;
    }
    return n;
  }

  /** seriesIds returns the IDs of all series in the buffer, ascending. */
  seriesIds(): Float64Array {
    return this.#slotIds.slice(0, this.slots).sort();
  }

  /** bytes is the memory held by the arrays. */
  get bytes(): number {
    return this.#ts.byteLength * 2 + this.#next.byteLength + this.#slotIds.byteLength * 2 + this.#slotHead.byteLength * 2 + this.slots * 40;
  }
}
