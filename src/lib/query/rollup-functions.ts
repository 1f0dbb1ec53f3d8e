// ROLLUP_FUNCTIONS: the registry of functions over range vectors (name → implementation).

import { METRICSQL_ROLLUPS } from './rollup-functions-metricsql.ts';
import { PROMETHEUS_ROLLUPS } from './rollup-functions-prometheus.ts';
import type { RollupFunction } from './rollup-window.ts';

export type { RollupFunction, RollupWindow } from './rollup-window.ts';

/** ROLLUP_FUNCTIONS maps a function name to its rollup implementation. */
export const ROLLUP_FUNCTIONS: ReadonlyMap<string, RollupFunction> = new Map(
  Object.entries({ ...PROMETHEUS_ROLLUPS, ...METRICSQL_ROLLUPS }),
);
