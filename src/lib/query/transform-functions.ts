// TRANSFORM_FUNCTIONS: the registry of functions whose arguments are not range vectors
// (name → implementation).

import type { TransformFunction } from './transform-call.ts';
import { PROMETHEUS_TRANSFORMS } from './transform-functions-prometheus.ts';
import { HISTOGRAM_TRANSFORMS } from './transform-histogram.ts';
import { info } from './transform-info.ts';
import { LABEL_TRANSFORMS } from './transform-labels.ts';
import { METRICSQL_TRANSFORMS } from './transform-metricsql.ts';

export type { TransformCall, TransformFunction } from './transform-call.ts';

/** TRANSFORM_FUNCTIONS maps a function name to its implementation. */
export const TRANSFORM_FUNCTIONS: ReadonlyMap<string, TransformFunction> = new Map(
  Object.entries({ ...PROMETHEUS_TRANSFORMS, info, ...HISTOGRAM_TRANSFORMS, ...LABEL_TRANSFORMS, ...METRICSQL_TRANSFORMS }),
);
