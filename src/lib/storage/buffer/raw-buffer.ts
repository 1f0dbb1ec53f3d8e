import { IdSlotTable, type IdSlotTableData } from './id-slot-table.ts';

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
  readonly table: IdSlotTableData;
}

const f64 = (n: number) => new Float64Array(new SharedArrayBuffer(n * 8));
const i32 = (n: number) => new Int32Array(new SharedArrayBuffer(n * 4));
const u32 = (n: number) => new Uint32Array(new SharedArrayBuffer(n * 4));

/** BufferMemory is the memory of one RawBuffer; a BufferPool recycles it. */
export class BufferMemory {
  ts: Float64Array;
  vals: Float64Array;
  next: Int32Array;
  slotIds: Float64Array;
  slotHead: Int32Array;
  slotTail: Int32Array;
  slotRows: Uint32Array;
  readonly table: IdSlotTable;
  /** recycled is true once the memory served a buffer before: its pages are resident. */
  recycled = false;

  constructor(rows: number, slots = 1024) {
    this.ts = f64(rows);
    this.vals = f64(rows);
    this.next = i32(rows);
    this.slotIds = f64(slots);
    this.slotHead = i32(slots);
    this.slotTail = new Int32Array(slots);
    this.slotRows = u32(slots);
    // Under a load factor of one half up to `slots` series, so a buffer sized from the last one
    // never grows its table.
    this.table = new IdSlotTable(2 * slots);
  }

  get bytes(): number {
    return this.ts.length * 20 + this.slotIds.length * 24 + this.table.bytes;
  }
}

/**
 * BufferPool recycles buffer memory: a buffer's arrays go back to the pool when the last reader
 * releases it and serve the next buffer, so steady ingestion allocates nothing and memory does
 * not depend on when the garbage collector of this or the background thread runs. Row arrays are
 * sized for maxRows up front; the OS commits pages only as they are written.
 */
export class BufferPool {
  readonly maxRows: number;
  readonly #free: BufferMemory[] = [];
  readonly #keep: number;
  // The most series slots a buffer of this pool needed: fresh memory starts with room for them
  // (at 100k series, growing the slot arrays and ID table from 1,024 was ~2% of the write path).
  #slots = 1024;

  constructor(maxRows: number, keep = 3) {
    this.maxRows = maxRows;
    this.#keep = keep;
  }

  take(): BufferMemory {
    return this.#free.pop() ?? new BufferMemory(this.maxRows, this.#slots);
  }

  /** noteSlots records that a buffer needed `slots` series slots (see take). */
  noteSlots(slots: number): void {
    if (slots > this.#slots) this.#slots = slots;
  }

  give(m: BufferMemory): void {
    // Memory that grew past maxRows (one huge call) is not worth keeping.
    if (this.#free.length < this.#keep && m.ts.length === this.maxRows) {
      m.table.clear();
      m.recycled = true;
      this.#free.push(m);
    }
  }

  /**
   * trim drops the memory held for reuse and returns its size in bytes. The garbage collector
   * frees it (a background thread that read a buffer holds it until its own collection).
   */
  trim(): number {
    const bytes = this.idleBytes;
    this.#free.length = 0;
    return bytes;
  }

  /** idleBytes is the memory held for reuse. */
  get idleBytes(): number {
    return this.#free.reduce((n, m) => n + m.bytes, 0);
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

/**
 * RawBuffer holds freshly written samples before they become a part: three parallel typed arrays
 * (timestamp, value, index of the series' next row) plus, per series in the buffer (a "slot"),
 * the head and tail of its row chain and an ID → slot table. Appending is O(1) with no
 * allocation per sample; reading one series walks its chain. The arrays are SharedArrayBuffers
 * so a background thread writes a sealed buffer into a part while searches still read it here.
 * The write path appends to the active buffer; sealed ones are read-only. Reference-counted:
 * the storage holds one reference, every search another; the last release recycles the memory.
 */
export class RawBuffer implements BufferSource {
  /** gen identifies this buffer; series refs cache (gen, slot) to skip the slot lookup. */
  readonly gen: number;
  rows = 0;
  slots = 0;
  #m: BufferMemory;
  readonly #pool: BufferPool | undefined;
  #refs = 1;

  constructor(gen: number, pool?: BufferPool, memory?: BufferMemory) {
    this.gen = gen;
    this.#pool = pool;
    this.#m = memory ?? pool?.take() ?? new BufferMemory(1024);
  }

  /** slotOf returns the slot of series id, creating it when absent. */
  slotOf(id: number): number {
    const m = this.#m;
    const s = m.table.get(id);
    if (s >= 0) return s;
    if (this.slots === m.slotIds.length) this.#growSlots();
    const slot = this.slots++;
    m.slotIds[slot] = id;
    m.slotHead[slot] = -1;
    m.slotTail[slot] = -1;
    m.slotRows[slot] = 0;
    m.table.set(id, slot);
    return slot;
  }

  /** append adds one sample to a slot's chain. */
  append(slot: number, ts: number, value: number): void {
    const m = this.#m;
    const i = this.rows;
    if (i === m.ts.length) this.#growRows();
    m.ts[i] = ts;
    m.vals[i] = value;
    m.next[i] = -1;
    const tail = m.slotTail[slot]!;
    if (tail < 0) m.slotHead[slot] = i;
    else m.next[tail] = i;
    m.slotTail[slot] = i;
    m.slotRows[slot]!++;
    this.rows = i + 1;
  }

  /** appendBatch appends n samples: sample i goes to slots[i]. Same as n append() calls, faster. */
  appendBatch(slots: Int32Array, ts: Float64Array, vals: Float64Array, n: number): void {
    while (this.rows + n > this.#m.ts.length) this.#growRows();
    const m = this.#m;
    const mts = m.ts;
    const mvals = m.vals;
    const next = m.next;
    const head = m.slotHead;
    const tail = m.slotTail;
    const count = m.slotRows;
    let r = this.rows;
    for (let i = 0; i < n; i++, r++) {
      const slot = slots[i]!;
      mts[r] = ts[i]!;
      mvals[r] = vals[i]!;
      next[r] = -1;
      const t = tail[slot]!;
      if (t < 0) head[slot] = r;
      else next[t] = r;
      tail[slot] = r;
      count[slot]!++;
    }
    this.rows = r;
  }

  #growRows(): void {
    const m = this.#m;
    const cap = m.ts.length * 2;
    const ts = f64(cap);
    ts.set(m.ts);
    const vals = f64(cap);
    vals.set(m.vals);
    const next = i32(cap);
    next.set(m.next);
    m.ts = ts;
    m.vals = vals;
    m.next = next;
  }

  #growSlots(): void {
    const m = this.#m;
    const cap = m.slotIds.length * 2;
    const ids = f64(cap);
    ids.set(m.slotIds);
    const head = i32(cap);
    head.set(m.slotHead);
    const tail = new Int32Array(cap);
    tail.set(m.slotTail);
    const rows = u32(cap);
    rows.set(m.slotRows);
    m.slotIds = ids;
    m.slotHead = head;
    m.slotTail = tail;
    m.slotRows = rows;
    this.#pool?.noteSlots(cap);
  }

  rowsOf(id: number): number {
    const s = this.#m.table.get(id);
    return s < 0 ? 0 : this.#m.slotRows[s]!;
  }

  copySeries(id: number, outTs: Float64Array, outVals: Float64Array, off: number): number {
    const m = this.#m;
    const s = m.table.get(id);
    return s < 0 ? 0 : copyChain(m.slotHead[s]!, m.next, m.ts, m.vals, outTs, outVals, off);
  }

  seriesIds(): Float64Array {
    return this.#m.slotIds.slice(0, this.slots).sort();
  }

  /** share returns the buffer's memory for a background thread; the buffer must be sealed. */
  share(): SharedBufferData {
    const m = this.#m;
    return {
      rows: this.rows, slots: this.slots, ts: m.ts, vals: m.vals, next: m.next,
      slotIds: m.slotIds, slotHead: m.slotHead, slotRows: m.slotRows, table: m.table.share(),
    };
  }

  acquire(): void {
    this.#refs++;
  }

  /** release drops a reference; the last one returns the memory to the pool. */
  release(): void {
    if (--this.#refs > 0) return;
    this.#pool?.give(this.#m);
    // Fail fast instead of reading recycled memory if a caller keeps using the buffer.
    this.#m = new BufferMemory(0, 0);
    this.rows = 0;
    this.slots = 0;
  }

  /** bytes is the memory held by the arrays. */
  get bytes(): number {
    return this.#m.bytes;
  }

  /** recycled reports whether the buffer's memory served another buffer before (see BufferMemory.recycled). */
  get recycled(): boolean {
    return this.#m.recycled;
  }
}

/** SharedBufferView reads a buffer shared by another thread (see RawBuffer.share). */
export class SharedBufferView implements BufferSource {
  readonly #d: SharedBufferData;

  constructor(d: SharedBufferData) {
    this.#d = d;
  }

  get rows(): number {
    return this.#d.rows;
  }

  seriesIds(): Float64Array {
    return this.#d.slotIds.slice(0, this.#d.slots).sort();
  }

  rowsOf(id: number): number {
    const s = IdSlotTable.lookupShared(this.#d.table, id);
    return s < 0 ? 0 : this.#d.slotRows[s]!;
  }

  copySeries(id: number, outTs: Float64Array, outVals: Float64Array, off: number): number {
    const d = this.#d;
    const s = IdSlotTable.lookupShared(d.table, id);
    return s < 0 ? 0 : copyChain(d.slotHead[s]!, d.next, d.ts, d.vals, outTs, outVals, off);
  }
}
