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

/** AggregateFunction computes an aggregation's output series. */
export type AggregateFunction = (a: AggregateInput) => Series[];
