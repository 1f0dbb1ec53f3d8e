// Series keys: a dictionary that numbers the label-set texts (rawKeys) a parser has seen, so a hot
// ingestion path can hand storage "series #17" instead of a labels array and a string per row.
// Only a line whose key text was never seen needs its labels built; every later line with the same
// text costs one Map lookup.

import type { Label, Labels } from './row.ts';

/**
 * SeriesKeyTable maps key numbers to canonical labels (labels[k] for key k). A table only grows: a
 * number keeps its meaning for the table's life, so consumers may cache per table object (storage
 * keeps key number → series there). A dictionary that must shrink starts a new table instead.
 */
export class SeriesKeyTable {
  /** labels of each key: sorted by name, unique names, no empty values; strings owned by the table. */
  readonly labels: Labels[] = [];
  /** rawKeys are the key texts, for rows materialised from a batch (MetricRow.rawKey; "" = none). */
  readonly rawKeys: string[] = [];
}

// Bytes of one entry besides its strings: Map slot, two array slots, label objects and arrays.
const ENTRY_OVERHEAD = 164;
// Key bytes are copied into slabs of this size (a longer key gets a slab of its own).
const SLAB_BYTES = 64 * 1024;

/**
 * SeriesKeyDictionary assigns dense numbers to key texts, in one SeriesKeyTable at a time. Memory
 * is bounded by maxBytes: when trim() finds the dictionary over budget it starts an empty table
 * (keys seen again get new numbers there). Strings are copied on add, so the dictionary never
 * keeps a request's text alive. Single-threaded: get/add/trim run synchronously on one thread.
 */
export class SeriesKeyDictionary {
  /** maxBytes is the budget of keys, labels and bookkeeping (an estimate). */
  readonly maxBytes: number;
  #map = new Map<string, number>();
  // Byte-level parsers look keys up by their raw bytes, as a latin1 string (one char per byte).
  // A separate map: a byte string could spell another key's text.
  #byBytes = new Map<string, number>();
  // Key bytes are views into shared slabs: an ArrayBuffer, its backing store and a DataView of
  // each key cost ~200 bytes of objects besides the ~90 bytes of the key itself.
  #keyBytes: (Uint8Array | undefined)[] = [];
  // The DataView of each #keyBytes entry's slab, for bytesAt's four-bytes-at-a-time comparison
  // (at the entry's byteOffset).
  #keyViews: (DataView | undefined)[] = [];
  #slab = new Uint8Array(0);
  #slabView = new DataView(this.#slab.buffer);
  #slabUsed = 0;
  #names = new Map<string, string>();
  #bytes = 0;
  #table = new SeriesKeyTable();
  // next[k] is the key that followed key k the last time k was seen: senders repeat their series
  // in the same order scrape after scrape, so it usually names the next line's key.
  #next = new Int32Array(1024).fill(-1);
  /** resets counts how often trim() started a new table. */
  resets = 0;

  constructor(maxBytes: number) {
    if (!(maxBytes > 0)) throw new RangeError(`series key dictionary budget must be positive; got ${maxBytes}`);
    this.maxBytes = maxBytes;
  }

  /** table is the current table; add() appends to it. */
  get table(): SeriesKeyTable {
    return this.#table;
  }

  /** size is the number of keys in the current table. */
  get size(): number {
    return this.#map.size;
  }

  /** bytes estimates the memory held by the current table. */
  get bytes(): number {
    return this.#bytes;
  }

  /** get returns the number of key text rawKey in the current table, or -1. */
  get(rawKey: string): number {
    const k = this.#map.get(rawKey);
    return k === undefined ? -1 : k;
  }

  /** getBytes returns the number of the key whose bytes, as a latin1 string, are `bytes`, or -1. */
  getBytes(bytes: string): number {
    const k = this.#byBytes.get(bytes);
    return k === undefined ? -1 : k;
  }

  /** keyBytes returns the bytes recorded for key k by addBytes, if any. */
  keyBytes(k: number): Uint8Array | undefined {
    return this.#keyBytes[k];
  }

  /**
   * bytesAt reports whether the bytes recorded for key k (by addBytes), or their first `len`, are
   * at b[at..]; bv is a DataView of exactly b. It compares four bytes at a time, from the end
   * (where keys of one metric differ): a byte loop was the largest single cost of parsing known lines.
   */
  bytesAt(k: number, b: Uint8Array, bv: DataView, at: number, len = -1): boolean {
    const kb = this.#keyBytes[k];
    if (kb === undefined) return false;
    if (len < 0) len = kb.length;
    if (!(len <= kb.length && at >= 0 && at + len <= b.length)) return false;
    const kv = this.#keyViews[k]!;
    const base = kb.byteOffset;
    let j = len - 4;
    for (; j >= 0; j -= 4) if (bv.getInt32(at + j, true) !== kv.getInt32(base + j, true)) return false;
    for (j += 3; j >= 0; j--) if (b[at + j] !== kb[j]) return false;
    return true;
  }

  /**
   * addBytes records that the bytes of a key text (latin1 string and the bytes themselves, both
   * copied) are key k of the current table: its UTF-8 decoding must be the key's text.
   */
  addBytes(latin1: string, bytes: Uint8Array, k: number): void {
    const t = this.#table;
    if (!(k >= 0 && k < t.labels.length)) throw new RangeError(`cannot record bytes of key ${k}: the table has ${t.labels.length} keys`);
    // An ASCII key's latin1 text is its text: one string serves both maps.
    const raw = t.rawKeys[k]!;
    this.#byBytes.set(raw === latin1 ? raw : ownString(latin1), k);
    while (this.#keyBytes.length < k) {
      this.#keyBytes.push(undefined);
      this.#keyViews.push(undefined);
    }
    // Copied into the slab; Buffer#slice would return a view that keeps the whole request chunk alive.
    if (this.#keyBytes[k] === undefined) {
      this.#keyBytes[k] = this.#copyToSlab(bytes);
      this.#keyViews[k] = this.#slabView;
      this.#bytes += 64;
    }
    this.#bytes += (raw === latin1 ? 1 : 3) * bytes.length + 48;
  }

  // copyToSlab returns a copy of bytes in the current slab, starting a new slab when it is full.
  #copyToSlab(bytes: Uint8Array): Uint8Array {
    const n = bytes.length;
    if (this.#slabUsed + n > this.#slab.length) {
      this.#slab = new Uint8Array(Math.max(SLAB_BYTES, n));
      this.#slabView = new DataView(this.#slab.buffer);
      this.#slabUsed = 0;
    }
    const own = this.#slab.subarray(this.#slabUsed, this.#slabUsed + n);
    own.set(bytes);
    this.#slabUsed += n;
    return own;
  }

  /** predict returns the key that followed key prev last time (see follow), or -1. */
  predict(prev: number): number {
    return prev >= 0 && prev < this.#next.length ? this.#next[prev]! : -1;
  }

  /** follow records that key k came right after key prev (both in the current table). */
  follow(prev: number, k: number): void {
    if (prev >= 0 && prev < this.#next.length) this.#next[prev] = k;
  }

  /**
   * add numbers a key text not yet in the table, with its canonical labels (as a parser checked
   * them); returns the new number. Both are copied. rowKey is what rows materialised from the
   * table carry as MetricRow.rawKey: the key text by default, none when "" (for keys that do not
   * name a label set on their own, e.g. when a request argument also shapes the labels).
   */
  add(rawKey: string, labels: Labels, rowKey = rawKey): number {
    const key = ownString(rawKey);
    const out: Label[] = new Array(labels.length);
    let bytes = ENTRY_OVERHEAD + 2 * key.length;
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i]!;
      const value = ownString(l.value);
      out[i] = { name: this.#name(l.name), value };
      bytes += 2 * value.length + 32;
    }
    const t = this.#table;
    const k = t.labels.length;
    if (k === this.#next.length) this.#growNext();
    t.labels.push(out);
    t.rawKeys.push(rowKey === rawKey ? key : ownString(rowKey));
    this.#map.set(key, k);
    this.#bytes += bytes;
    return k;
  }

  #growNext(): void {
    const next = new Int32Array(this.#next.length * 2).fill(-1);
    next.set(this.#next);
    this.#next = next;
  }

  #name(name: string): string {
    let own = this.#names.get(name);
    if (own === undefined) {
      own = ownString(name);
      this.#names.set(own, own);
      this.#bytes += 2 * own.length + 64;
    }
    return own;
  }

  /**
   * trim starts a new, empty table when the dictionary is over its budget; returns whether it did.
   * Call it between batches, never while a batch of the current table is being filled.
   */
  trim(): boolean {
    if (this.#bytes <= this.maxBytes) return false;
    this.#map = new Map();
    this.#byBytes = new Map();
    this.#keyBytes = [];
    this.#keyViews = [];
    this.#slab = new Uint8Array(0);
    this.#slabView = new DataView(this.#slab.buffer);
    this.#slabUsed = 0;
    this.#names = new Map();
    this.#bytes = 0;
    this.#table = new SeriesKeyTable();
    this.#next = new Int32Array(1024).fill(-1);
    this.resets++;
    return true;
  }
}

const LATIN1 = /^[\x00-\xff]*$/;

/**
 * ownString returns a copy of s in its own memory. A substring in V8 may be a slice that keeps its
 * whole parent (a request body) alive; a dictionary keeps keys for hours.
 */
export function ownString(s: string): string {
  if (s.length < 13) return s; // V8 copies substrings this short instead of slicing
  return LATIN1.test(s) ? Buffer.from(s, 'latin1').toString('latin1') : Buffer.from(s, 'utf16le').toString('utf16le');
}
