// Signatures of every function and aggregation the parser accepts: argument types, arity and
// result type. The evaluator's registries (src/lib/query) implement exactly these names; a
// test there fails when a signature has no implementation or an implementation no signature.

import type { ValueType } from './ast.ts';

/**
 * ArgType is one parameter: a PromQL type, or 'range' for a range vector that also accepts an
 * instant vector selector with MetricsQL's implicit window (`rate(m)`).
 */
export type ArgType = ValueType | 'range';

export interface FunctionSignature {
  readonly name: string;
  readonly args: readonly ArgType[];
  /** minArgs: arguments that must be present (the rest of `args` are optional). */
  readonly minArgs: number;
  /** variadic: the last type of `args` repeats without bound. */
  readonly variadic: boolean;
  readonly returns: ValueType;
}

// Compact spec: comma-separated args; `?` marks optional ones (at the end), `*` a repeating last
// arg; a `:` then the result type. r = range, v = vector, s = scalar, str = string.
const SPECS: Readonly<Record<string, string>> = {
  // Prometheus 3 functions.
  abs: 'v:v', absent: 'v:v', absent_over_time: 'r:v', acos: 'v:v', acosh: 'v:v', asin: 'v:v',
  asinh: 'v:v', atan: 'v:v', atanh: 'v:v', avg_over_time: 'r:v', ceil: 'v:v', changes: 'r:v',
  clamp: 'v,s,s:v', clamp_max: 'v,s:v', clamp_min: 'v,s:v', cos: 'v:v', cosh: 'v:v',
  count_over_time: 'r:v', day_of_month: 'v?:v', day_of_week: 'v?:v', day_of_year: 'v?:v',
  days_in_month: 'v?:v', deg: 'v:v', delta: 'r:v', deriv: 'r:v', exp: 'v:v', floor: 'v:v',
  first_over_time: 'r:v', histogram_avg: 'v:v', histogram_count: 'v:v', histogram_fraction: 's,s,v:v',
  histogram_quantile: 's,v:v', histogram_quantiles: 'v,str,s*:v', histogram_stddev: 'v:v',
  histogram_stdvar: 'v:v', histogram_sum: 'v:v', double_exponential_smoothing: 'r,s,s:v',
  holt_winters: 'r,s,s:v', hour: 'v?:v', info: 'v,v?:v', idelta: 'r:v', increase: 'r:v', irate: 'r:v',
  label_join: 'v,str,str,str*:v', label_replace: 'v,str,str,str,str:v', last_over_time: 'r:v',
  ln: 'v:v', log10: 'v:v', log2: 'v:v', mad_over_time: 'r:v', max_over_time: 'r:v', min_over_time: 'r:v',
  minute: 'v?:v', month: 'v?:v', pi: ':s', predict_linear: 'r,s:v', present_over_time: 'r:v',
  quantile_over_time: 's,r:v', rad: 'v:v', rate: 'r:v', resets: 'r:v', round: 'v,s?:v', scalar: 'v:s',
  sgn: 'v:v', sin: 'v:v', sinh: 'v:v', sort: 'v:v', sort_by_label: 'v,str*:v',
  sort_by_label_desc: 'v,str*:v', sort_desc: 'v:v', sqrt: 'v:v', stddev_over_time: 'r:v',
  stdvar_over_time: 'r:v', sum_over_time: 'r:v', tan: 'v:v', tanh: 'v:v', time: ':s', timestamp: 'v:v',
  ts_of_first_over_time: 'r:v', ts_of_last_over_time: 'r:v', ts_of_max_over_time: 'r:v',
  ts_of_min_over_time: 'r:v', vector: 's:v', year: 'v?:v', range: ':s', min_of: 's,s:s', max_of: 's,s:s',

  // MetricsQL rollup functions.
  median_over_time: 'r:v', mode_over_time: 'r:v', rollup: 'r,str?:v', rollup_rate: 'r,str?:v',
  rollup_deriv: 'r,str?:v', rollup_increase: 'r,str?:v', rollup_delta: 'r,str?:v',
  rollup_candlestick: 'r,str?:v', rollup_scrape_interval: 'r,str?:v', increase_pure: 'r:v',
  rate_over_sum: 'r:v', count_eq_over_time: 'r,s:v', count_ne_over_time: 'r,s:v',
  count_gt_over_time: 'r,s:v', count_le_over_time: 'r,s:v', share_eq_over_time: 'r,s:v',
  share_gt_over_time: 'r,s:v', share_le_over_time: 'r,s:v', sum_eq_over_time: 'r,s:v',
  sum_gt_over_time: 'r,s:v', sum_le_over_time: 'r,s:v', sum2_over_time: 'r:v', range_over_time: 'r:v',
  distinct_over_time: 'r:v', integrate: 'r:v', lag: 'r:v', lifetime: 'r:v', tfirst_over_time: 'r:v',
  tlast_over_time: 'r:v', tmin_over_time: 'r:v', tmax_over_time: 'r:v', tlast_change_over_time: 'r:v',
  geomean_over_time: 'r:v', ideriv: 'r:v', increases_over_time: 'r:v', decreases_over_time: 'r:v',
  ascent_over_time: 'r:v', descent_over_time: 'r:v', zscore_over_time: 'r:v', scrape_interval: 'r:v',
  duration_over_time: 'r,s:v', default_rollup: 'r:v',

  // MetricsQL transform functions.
  range_sum: 'v:v', range_avg: 'v:v', range_max: 'v:v', range_min: 'v:v', range_first: 'v:v',
  range_last: 'v:v', range_median: 'v:v', range_quantile: 's,v:v', range_stddev: 'v:v',
  range_stdvar: 'v:v', range_mad: 'v:v', range_zscore: 'v:v', range_normalize: 'v*:v',
  range_linear_regression: 'v:v', running_sum: 'v:v', running_avg: 'v:v', running_min: 'v:v',
  running_max: 'v:v', keep_last_value: 'v:v', keep_next_value: 'v:v', interpolate: 'v:v',
  remove_resets: 'v:v', smooth_exponential: 'v,s:v', union: 'v*:v', now: ':s', step: ':s', start: ':s',
  end: ':s', bitmap_and: 'v,s:v', bitmap_or: 'v,s:v', bitmap_xor: 'v,s:v', sign: 'v:v', ru: 'v,v:v',
  sort_by_label_numeric: 'v,str*:v', sort_by_label_numeric_desc: 'v,str*:v', limit_offset: 's,s,v:v',
  label_set: 'v,str*:v', alias: 'v,str:v', label_del: 'v,str*:v', label_keep: 'v,str*:v',
  label_copy: 'v,str*:v', label_move: 'v,str*:v', label_map: 'v,str,str*:v', label_value: 'v,str:v',
  label_match: 'v,str,str:v', label_mismatch: 'v,str,str:v', label_lowercase: 'v,str*:v',
  label_uppercase: 'v,str*:v', label_transform: 'v,str,str,str:v', drop_common_labels: 'v*:v',
  histogram_share: 's,v:v',
};

// Aggregations: Prometheus ones, then MetricsQL ones. Value: spec of the parameters before the
// aggregated expression ('' = none).
const AGGREGATIONS: Readonly<Record<string, string>> = {
  sum: '', avg: '', count: '', min: '', max: '', group: '', stddev: '', stdvar: '',
  topk: 's', bottomk: 's', limitk: 's', limit_ratio: 's', quantile: 's', count_values: 'str',
  median: '', mode: '', share: '', zscore: '', any: '', distinct: '', geomean: '', mad: '', sum2: '',
  topk_max: 's', topk_min: 's', topk_avg: 's', topk_median: 's', topk_last: 's',
  bottomk_max: 's', bottomk_min: 's', bottomk_avg: 's', bottomk_median: 's', bottomk_last: 's',
  quantiles: 'str,s*',
};

const TYPE_CODES: Readonly<Record<string, ArgType>> = { r: 'range', v: 'vector', s: 'scalar', str: 'string', m: 'matrix' };

function parseSpec(name: string, spec: string): FunctionSignature {
  const [argsText = '', ret = 'v'] = spec.split(':');
  const parts = argsText === '' ? [] : argsText.split(',');
  let minArgs = 0;
  let variadic = false;
  const args = parts.map((p) => {
    const optional = p.endsWith('?');
    const rep = p.endsWith('*');
    const code = optional || rep ? p.slice(0, -1) : p;
    if (rep) variadic = true;
    else if (!optional) minArgs++;
    const t = TYPE_CODES[code];
    if (t === undefined) throw new Error(`bad signature spec for ${name}: ${spec}`);
    return t;
  });
  const returns = TYPE_CODES[ret];
  if (returns === undefined || returns === 'range') throw new Error(`bad result type for ${name}: ${spec}`);
  return { name, args, minArgs, variadic, returns };
}

/** FUNCTIONS maps a function name (lower case) to its signature. */
export const FUNCTIONS: ReadonlyMap<string, FunctionSignature> = new Map(
  Object.entries(SPECS).map(([name, spec]) => [name, parseSpec(name, spec)]),
);

/**
 * AGGREGATION_PARAMS maps an aggregation name to the types of its parameters before the
 * aggregated expression (the last of them may repeat when `variadic`).
 */
export const AGGREGATION_PARAMS: ReadonlyMap<string, FunctionSignature> = new Map(
  Object.entries(AGGREGATIONS).map(([name, spec]) => [name, parseSpec(name, `${spec}:v`)]),
);

/** isAggregation reports whether name (any case) is an aggregation operator. */
export function isAggregation(name: string): boolean {
  return AGGREGATION_PARAMS.has(name.toLowerCase());
}
