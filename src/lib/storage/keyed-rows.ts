import type { Labels } from '../storageapi/api.ts';

/**
 * KeyTable gives the labels of numbered series keys: labels[k] for key k. A table only grows and
 * a number never changes meaning within it, so the write path caches key number → series per
 * table object (protoparser's SeriesKeyTable is one).
 */
export interface KeyTable {
  readonly labels: readonly Labels[];
}

/**
 * KeyedRows is a batch of samples in columns (protoparser's KeyedColumns is one): row i is series
 * key keys[i] of `table`, timestamps[i] (ms) and values[i], for i < length. Storage reads the
 * arrays only during the call that receives them.
 */
export interface KeyedRows {
  readonly length: number;
  readonly keys: Int32Array;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly table: KeyTable;
}
