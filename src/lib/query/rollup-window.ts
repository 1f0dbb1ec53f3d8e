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
 * SweepWindows: every window of one series for RollupFunction.sweep. Window i ends at
 * `end0 + i * step` (step 0: one fixed window, @) and holds the samples in
 * `(end - rangeMs - edgeMs, end]` (edgeMs is 1 with closed windows). The sweep writes
 * `values[i]` and sets `present[i] = 1` where the window has a value; both arrays come zeroed.
 */
export interface SweepWindows {
  readonly ts: Float64Array;
  readonly vs: Float64Array;
  readonly end0: number;
  readonly step: number;
  readonly n: number;
  readonly rangeMs: number;
  readonly edgeMs: number;
  readonly values: Float64Array;
  readonly present: Uint8Array;
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
  /**
   * sweep, when present, computes every window of a series in one loop and returns whether any
   * window had a value. The engine uses it for plain windows (no anchored/smoothed modifier, one
   * range for all series, no scalar parameters, no variants); it must give exactly compute's
   * results. The hottest rollups have one: a loop per function keeps the window arithmetic and
   * the function body in one optimised piece of code instead of a call per window.
   */
  readonly sweep?: (s: SweepWindows) => boolean;
  readonly variants?: readonly string[];
  readonly variantLabel?: string;
}
