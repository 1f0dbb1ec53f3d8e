/** IdSlotTableData is the shared memory of an IdSlotTable. */
export interface IdSlotTableData {
  readonly keys: Float64Array;
  readonly slots: Int32Array;
}

function hash(id: number, mask: number): number {
  return (Math.imul((id | 0) ^ ((id / 4294967296) | 0), 0x9e3779b1) >>> 0) & mask;
}

/**
 * IdSlotTable maps series IDs (integers >= 1) to slot numbers with open addressing in two shared
 * typed arrays: 12 bytes per entry at a load factor under one half, against ~60 for a Map, and
 * readable from another thread. Key 0 marks a free entry. Not safe for concurrent writers.
 */
export class IdSlotTable {
  #keys: Float64Array;
  #slots: Int32Array;
  #size = 0;

  constructor(capacity = 1024) {
    const cap = 2 ** Math.ceil(Math.log2(Math.max(16, capacity)));
    this.#keys = new Float64Array(new SharedArrayBuffer(cap * 8));
    this.#slots = new Int32Array(new SharedArrayBuffer(cap * 4));
  }

  get size(): number {
    return this.#size;
  }

  /** get returns the slot of id, or -1. */
  get(id: number): number {
    const keys = this.#keys;
    const mask = keys.length - 1;
    for (let i = hash(id, mask); ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === id) return this.#slots[i]!;
      if (k === 0) return -1;
    }
  }

  /** set maps id (not yet present) to slot. */
  set(id: number, slot: number): void {
    if ((this.#size + 1) * 2 > this.#keys.length) this.#grow();
    this.#insert(this.#keys, this.#slots, id, slot);
    this.#size++;
  }

  #insert(keys: Float64Array, slots: Int32Array, id: number, slot: number): void {
    const mask = keys.length - 1;
    let i = hash(id, mask);
    while (keys[i] !== 0) i = (i + 1) & mask;
    keys[i] = id;
    slots[i] = slot;
  }

  #grow(): void {
    const cap = this.#keys.length * 2;
    const keys = new Float64Array(new SharedArrayBuffer(cap * 8));
    const slots = new Int32Array(new SharedArrayBuffer(cap * 4));
    const ok = this.#keys;
    for (let i = 0; i < ok.length; i++) if (ok[i] !== 0) this.#insert(keys, slots, ok[i]!, this.#slots[i]!);
    this.#keys = keys;
    this.#slots = slots;
  }

  /** clear empties the table, keeping its memory. */
  clear(): void {
    if (this.#size > 0) this.#keys.fill(0);
    this.#size = 0;
  }

  share(): IdSlotTableData {
    return { keys: this.#keys, slots: this.#slots };
  }

  /** lookupShared reads a table shared by another thread. */
  static lookupShared(d: IdSlotTableData, id: number): number {
    const mask = d.keys.length - 1;
    for (let i = hash(id, mask); ; i = (i + 1) & mask) {
      const k = d.keys[i]!;
      if (k === id) return d.slots[i]!;
      if (k === 0) return -1;
    }
  }

  get bytes(): number {
    return this.#keys.length * 12;
  }
}
