// QueryState: everything one query evaluation shares — storage, resolved options, limits,
// statistics and the per-query fetch cache.

import type { DurationContext, DurationExpr, Expr, VectorSelector } from '../promql/index.ts';
import { evalDuration, selectorsOf } from '../promql/index.ts';
import { DEFAULT_TENANT, type LabelMatcher, type Searcher, type Tenant } from '../storageapi/index.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { QueryError } from './errors.ts';
import type { RollupOffload } from './rollup-offload.ts';
import type { Grid, RawSeries, Value } from './types.ts';

/** QueryOptions configure the evaluator; every limit of 0 means "no limit". */
export interface QueryOptions {
  /** lookbackDeltaMs: how far back an instant selector looks for a sample (-search.maxStalenessInterval); default 5m. */
  readonly lookbackDeltaMs?: number;
  /** maxPointsPerTimeseries: most steps a range query or subquery may have (-search.maxPointsPerTimeseries); default 30000. */
  readonly maxPointsPerTimeseries?: number;
  /** maxSeries: most series one selector may fetch (-search.maxUniqueTimeseries); default 0. */
  readonly maxSeries?: number;
  /** maxSamples: most raw samples one query may load (-search.maxSamplesPerQuery); default 0. */
  readonly maxSamples?: number;
  /**
   * subqueryStepMs: the step of subqueries written without one (`[1h:]`). Default: the query
   * step for range queries, 1m for instant queries (Prometheus' default evaluation interval).
   */
  readonly subqueryStepMs?: number;
  /** instantStepMs: the step that `i` durations, step() and implicit windows use in instant queries; default 5m. */
  readonly instantStepMs?: number;
  /**
   * closedWindows selects Prometheus 2 window semantics: range windows `[t - d, t]` and the
   * lookback `[t - lookback, t]` include a sample exactly on their left edge. Default false:
   * Prometheus 3's left-open `(t - d, t]`. Subqueries then also evaluate at `t - d` itself.
   */
  readonly closedWindows?: boolean;
  /** tenant whose data is queried; default {0, 0}. */
  readonly tenant?: Tenant;
  /** extraMatchers are AND-ed into every selector (the `extra_label` query arg). */
  readonly extraMatchers?: readonly LabelMatcher[];
  /** extraFilterSets are OR-ed alternatives AND-ed into every selector (`extra_filters[]`). */
  readonly extraFilterSets?: readonly (readonly LabelMatcher[])[];
  /** now returns the current time in ms (injected clock). */
  readonly now: () => number;
  /** signal aborts the evaluation promptly (rejects with the signal's reason). */
  readonly signal?: AbortSignal;
  /**
   * rollupOffload, when set, evaluates rollups over range selectors (`rate(m[5m])`) elsewhere,
   * e.g. on worker threads (src/lib/querypool), with the same results.
   */
  readonly rollupOffload?: RollupOffload | undefined;
}

export interface ResolvedOptions {
  readonly lookbackDeltaMs: number;
  readonly maxPointsPerTimeseries: number;
  readonly maxSeries: number;
  readonly maxSamples: number;
  readonly subqueryStepMs: number | null;
  readonly instantStepMs: number;
  /** edgeMs is 1 with closed windows, else 0: timestamps are integer ms, so [a, b] = (a - 1, b]. */
  readonly edgeMs: number;
  readonly tenant: Tenant;
  readonly extraMatchers: readonly LabelMatcher[];
  readonly extraFilterSets: readonly (readonly LabelMatcher[])[];
  readonly rollupOffload: RollupOffload | undefined;
}

export function resolveOptions(o: QueryOptions): ResolvedOptions {
  return {
    lookbackDeltaMs: o.lookbackDeltaMs ?? 300_000,
    maxPointsPerTimeseries: o.maxPointsPerTimeseries ?? 30_000,
    maxSeries: o.maxSeries ?? 0,
    maxSamples: o.maxSamples ?? 0,
    subqueryStepMs: o.subqueryStepMs ?? null,
    instantStepMs: o.instantStepMs ?? 300_000,
    edgeMs: o.closedWindows === true ? 1 : 0,
    tenant: o.tenant ?? DEFAULT_TENANT,
    extraMatchers: o.extraMatchers ?? [],
    extraFilterSets: o.extraFilterSets ?? [],
    rollupOffload: o.rollupOffload,
  };
}

/** QueryStats are reported with every result. */
export interface QueryStats {
  /** seriesFetched: series returned by storage over all selectors (after sharing identical fetches). */
  seriesFetched: number;
  /** samplesFetched: raw samples loaded from storage. */
  samplesFetched: number;
}

export type Evaluate = (e: Expr, grid: Grid) => Promise<Value>;

// About 10 ms of rollup work on this project's machines.
const YIELD_WORK = 1 << 20;

export class QueryState {
  readonly searcher: Searcher;
  readonly opts: ResolvedOptions;
  readonly signal: AbortSignal;
  /** The top-level query range and step (ms): start()/end()/range()/step() refer to them. */
  readonly queryStart: number;
  readonly queryEnd: number;
  readonly queryStep: number;
  readonly isInstant: boolean;
  /** now is the injected clock (ms). */
  readonly now: () => number;
  readonly stats: QueryStats = { seriesFetched: 0, samplesFetched: 0 };
  /** fetchCache shares the data of identical selectors (same matchers and time range). */
  readonly fetchCache = new Map<string, Promise<RawSeries[]>>();
  readonly #selectorUses = new Map<string, number>();
  // #multi: the query holds more than one selector (countSelectors).
  #multi = false;
  #work = 0;
  evaluate: Evaluate = async () => {
    throw new QueryError('query state has no evaluator attached');
  };

  constructor(searcher: Searcher, opts: ResolvedOptions, signal: AbortSignal, start: number, end: number, step: number, isInstant: boolean, now: () => number) {
    this.now = now;
    this.searcher = searcher;
    this.opts = opts;
    this.signal = signal;
    this.queryStart = start;
    this.queryEnd = end;
    this.queryStep = step;
    this.isInstant = isInstant;
  }

  /** countSelectors records how often each selector (name and matchers) occurs in e, the query. */
  countSelectors(e: Expr): void {
    const sels = selectorsOf(e);
    // A query with one selector never asks twice (most dashboard panels): no key to build.
    if (sels.length < 2) return;
    this.#multi = true;
    for (const sel of sels) {
      const k = selectorKey(sel);
      this.#selectorUses.set(k, (this.#selectorUses.get(k) ?? 0) + 1);
    }
  }

  /**
   * mayRefetch reports whether the query holds sel's name and matchers more than once (see
   * countSelectors), so its data may be asked for again and is worth keeping for a second use.
   */
  mayRefetch(sel: VectorSelector): boolean {
    return this.#multi && (this.#selectorUses.get(selectorKey(sel)) ?? 0) > 1;
  }

  /** durationMs evaluates a duration expression to integer milliseconds. */
  durationMs(d: DurationExpr): number {
    const ctx: DurationContext = {
      stepSeconds: this.queryStep / 1000,
      rangeSeconds: (this.queryEnd - this.queryStart) / 1000,
      stepUnitSeconds: (this.isInstant ? this.opts.instantStepMs : this.queryStep) / 1000,
    };
    const s = evalDuration(d, ctx);
    if (!Number.isFinite(s)) throw new QueryError(`duration evaluates to ${s}, want a finite number of seconds`);
    return Math.round(s * 1000);
  }

  /**
   * yieldAfter counts work (points computed) and, every YIELD_WORK points, gives the event loop a
   * turn and then throws if the query was aborted. Long evaluations thus let other requests,
   * timers (the query deadline) and client disconnects through. Returns undefined when no turn is
   * due, so that a loop over series awaits only when it must (`const y = st.yieldAfter(n); if (y)
   * await y;`): an await per series costs a promise turn even on a value that is not a promise.
   */
  yieldAfter(points: number): Promise<void> | undefined {
    this.#work += points;
    if (this.#work < YIELD_WORK) return undefined;
    this.#work = 0;
    return this.#nextTurn();
  }

  async #nextTurn(): Promise<void> {
    await nextTurn();
    this.signal.throwIfAborted();
  }

  /** subqueryStep is the step (ms) of a subquery written without one. */
  defaultSubqueryStep(): number {
    if (this.opts.subqueryStepMs !== null) return this.opts.subqueryStepMs;
    return this.isInstant ? 60_000 : this.queryStep;
  }
}

function selectorKey(sel: VectorSelector): string {
  return JSON.stringify([sel.name, sel.matcherSets]);
}
