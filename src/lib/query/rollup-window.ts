// The contract between the rollup engine (rollup-eval.ts) and rollup functions.

/**
 * RollupWindow is one evaluation of a rollup function: the samples `ts/vs[lo, hi)` of one
 * series inside the window (start, end] (ms; staleness markers removed). The engine reuses
 * one object per series, so functions must not keep references to it.
 */
export interface RollupWindow {
  ts: Float64Array;
  vs: Float64Array;
  lo: number;
  hi: number;
  /** start: exclusive lower bound of the window (ms). */
  start: number;
  /** end: inclusive upper bound of the window (ms), i.e. evaluation time minus offset. */
  end: number;
  /** rangeMs: the window length (end - start). */
  rangeMs: number;
  /** evalTime: the step's evaluation timestamp (ms) before offset/@ (predict_linear's "now"). */
  evalTime: number;
  /** params: the scalar arguments at this step, in argument order (the range argument excluded). */
  params: number[];
  /** strParams: the string arguments, in argument order. */
  strParams: string[];
  /** stepMs: the query step (ms). */
  stepMs: number;
  /**
   * scratch: per-series state a function may compute once and reuse for every window of the
   * series (the engine resets it to null for each series).
   */
  scratch: Float64Array | null;
}

/**
 * RollupFunction computes one value per window. The engine skips windows holding fewer than
 * `minSamples` samples; `compute` returns undefined for "no value at this step".
 * `keepName` keeps the metric name (last_over_time acts like an offset, so it keeps it).
 * `variants` makes one output series per variant, told apart by label `variantLabel`
 * (MetricsQL rollup(), rollup_candlestick()); a string argument can select one variant.
 */
export interface RollupFunction {
  readonly minSamples: number;
  /**
   * extended: the function's behaviour under Prometheus 3's `anchored`/`smoothed` range
   * modifiers. The window then also holds the samples up to one lookback before `start` (and
   * after `end` when smoothed); `start`/`end` stay the range bounds.
   */
  readonly extended?: {
    readonly anchored: boolean;
    readonly smoothed: boolean;
    readonly compute: (w: RollupWindow, smoothed: boolean) => number | undefined;
  };
  readonly keepName?: boolean;
  readonly compute: (w: RollupWindow, variant: number) => number | undefined;
  readonly variants?: readonly string[];
  readonly variantLabel?: string;
}
