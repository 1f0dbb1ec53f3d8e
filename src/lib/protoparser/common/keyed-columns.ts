import type { Row } from './row.ts';
import { SeriesKeyTable } from './series-keys.ts';

/**
 * KeyedColumns is a batch of samples in columns: row i is (series key keys[i] of `table`,
 * timestamps[i] in ms, values[i]), for i < length. It is what a keyed parser fills instead of Row
 * objects; storage reads it without a per-row object. The arrays are reused after a batch was
 * delivered, so a consumer must not keep them past its onBatch call.
 */
export class KeyedColumns {
  length = 0;
  keys: Int32Array;
  timestamps: Float64Array;
  values: Float64Array;
  /** table holds the labels of the key numbers in this batch. */
  table: SeriesKeyTable;
  /** lastKey is the key of the last row pushed in this stream (-1: none yet); kept across clear() while the table stays. */
  lastKey = -1;

  constructor(capacity = 1024, table = new SeriesKeyTable()) {
    const cap = Math.max(16, capacity);
    this.keys = new Int32Array(cap);
    this.timestamps = new Float64Array(cap);
    this.values = new Float64Array(cap);
    this.table = table;
  }

  /** of wraps existing columns (not copied) as a batch of `length` rows numbered in table. */
  static of(table: SeriesKeyTable, keys: Int32Array, timestamps: Float64Array, values: Float64Array, length: number): KeyedColumns {
    if (!(length <= keys.length && length <= timestamps.length && length <= values.length)) {
      throw new RangeError(`cannot wrap ${length} rows in columns of ${keys.length}, ${timestamps.length} and ${values.length} entries`);
    }
    const c = new KeyedColumns(0, table);
    c.keys = keys;
    c.timestamps = timestamps;
    c.values = values;
    c.length = length;
    return c;
  }

  /** push appends one row. */
  push(key: number, timestamp: number, value: number): void {
    const i = this.length;
    if (i === this.keys.length) this.#grow();
    this.keys[i] = key;
    this.timestamps[i] = timestamp;
    this.values[i] = value;
    this.length = i + 1;
    this.lastKey = key;
  }

  /**
   * pushRow appends one row whose timestamp is row[0] and value row[1]: for hot parsers, which keep
   * both in a typed array so no float64 is boxed whether or not the call is inlined.
   */
  pushRow(key: number, row: Float64Array): void {
    const i = this.length;
    if (i === this.keys.length) this.#grow();
    this.keys[i] = key;
    this.timestamps[i] = row[0]!;
    this.values[i] = row[1]!;
    this.length = i + 1;
    this.lastKey = key;
  }

  /** clear empties the batch for reuse; its rows are then numbered in `table`. */
  clear(table: SeriesKeyTable): void {
    this.length = 0;
    if (table !== this.table) this.lastKey = -1;
    this.table = table;
  }

  /**
   * toRows materialises the batch as Rows (for consumers without a keyed path). Rows share the
   * table's labels arrays, which must not be modified.
   */
  toRows(): Row[] {
    const out: Row[] = new Array(this.length);
    const { labels, rawKeys } = this.table;
    for (let i = 0; i < this.length; i++) {
      const k = this.keys[i]!;
      const raw = rawKeys[k]!;
      out[i] = raw === '' ? { labels: labels[k]!, timestamp: this.timestamps[i]!, value: this.values[i]! } : { labels: labels[k]!, timestamp: this.timestamps[i]!, value: this.values[i]!, rawKey: raw };
    }
    return out;
  }

  #grow(): void {
    const cap = this.keys.length * 2;
    const keys = new Int32Array(cap);
    keys.set(this.keys);
    const ts = new Float64Array(cap);
    ts.set(this.timestamps);
    const vals = new Float64Array(cap);
    vals.set(this.values);
    this.keys = keys;
    this.timestamps = ts;
    this.values = vals;
  }
}
