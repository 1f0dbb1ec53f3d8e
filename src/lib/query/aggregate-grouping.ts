// Grouping of aggregation inputs: `by (...)` keeps only the listed labels, `without (...)`
// drops them and the metric name.

import type { Grouping } from '../promql/index.ts';
import type { Labels } from '../storageapi/index.ts';
import { dropLabels, getLabel, keepLabels, labelsKey, METRIC_NAME } from './labels.ts';

/** GroupKeyer computes the group key and the output labels of an input label set. */
export interface GroupKeyer {
  key(ls: Labels): string;
  labels(ls: Labels): Labels;
}

/** groupKeyer implements `by (...)` (keep only those labels) and `without (...)` (drop them and the name). */
export function groupKeyer(g: Grouping | null): GroupKeyer {
  if (g === null || (!g.without && g.labels.length === 0)) return { key: () => '', labels: () => [] };
  if (g.without) {
    const drop = new Set([...g.labels, METRIC_NAME]);
    return { key: (ls) => labelsKey(dropLabels(ls, drop)), labels: (ls) => dropLabels(ls, drop) };
  }
  const keep = new Set(g.labels);
  const order = [...keep].sort();
  return {
    // The values of the listed labels joined by \xff, built without an array per series.
    key: (ls) => {
      let k = getLabel(ls, order[0]!);
      for (let i = 1; i < order.length; i++) k += '\xff' + getLabel(ls, order[i]!);
      return k;
    },
    labels: (ls) => keepLabels(ls, keep),
  };
}

