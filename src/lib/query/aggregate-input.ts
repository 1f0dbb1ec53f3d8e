// The contract between evalAggregate and the aggregation implementations.

import type { Grouping } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import type { Series } from './types.ts';

/**
 * AggregateInput: the input series, the group of each (`groupOf[k]`, groups numbered in order
 * of first appearance), each group's output labels, the number of steps, and the evaluated
 * parameters (scalars per step, strings) in argument order.
 */
export interface AggregateInput {
  readonly series: readonly Series[];
  readonly groupOf: Int32Array;
  readonly groupLabels: readonly Labels[];
  readonly n: number;
  readonly params: readonly Float64Array[];
  readonly strParams: readonly string[];
  readonly isInstant: boolean;
  /** grouping as written (count_values groups by the values it creates). */
  readonly grouping: Grouping | null;
}

/**
 * GroupAccumulator reduces the series of one group, fed one series at a time (the caller may
 * reuse the arrays after add returns), to one output series.
 */
export interface GroupAccumulator {
  add(present: Uint8Array, values: Float64Array): void;
  finish(): { values: Float64Array; present: Uint8Array };
}

/**
 * AggregateFunction: a `stream` aggregation reduces each group with an accumulator, so its
 * input is never materialised (sum(rate(...)) streams the rate series); a `batch` one needs
 * all input series at once.
 */
export type AggregateFunction =
  | { readonly kind: 'stream'; readonly create: (n: number) => GroupAccumulator }
  | { readonly kind: 'batch'; readonly apply: (a: AggregateInput) => Series[] };
