// The one list of conformance evals we skip, each rule with its reason. Everything not
// matched here runs and counts as passed or failed.

import { parse, selectorsOf } from '../../src/lib/promql/index.ts';
import { matchesAnySet } from '../../src/lib/query/index.ts';
import type { LabelMatcher, Labels } from '../../src/lib/storageapi/index.ts';
import type { EvalCommand } from './script.ts';

/** SkipContext: what the runner knows about the data loaded before an eval. */
export interface SkipContext {
  readonly file: string;
  /** histogramSeries: label sets that got native-histogram samples (loaded or NHCB-converted). */
  readonly histogramSeries: readonly Labels[];
  /** startTimestamps: the current data block used `metric@st` start-timestamp lines. */
  readonly startTimestamps: boolean;
}

export interface SkipRule {
  readonly reason: string;
  readonly applies: (cmd: EvalCommand, ctx: SkipContext) => boolean;
}

const NATIVE_HISTOGRAM = 'native histograms are out of scope (issue 4)';

// readsHistograms: some selector of the query matches a series holding native histograms.
function readsHistograms(query: string, hist: readonly Labels[]): boolean {
  if (hist.length === 0) return false;
  let expr;
  try {
    expr = parse(query);
  } catch {
    return false;
  }
  return selectorsOf(expr).some((sel) => {
    const name: LabelMatcher[] = sel.name === '' ? [] : [{ name: '__name__', type: '=', value: sel.name }];
    const sets = sel.matcherSets.map((set) => [...name, ...set.map((m): LabelMatcher => ({ name: m.name, type: m.op, value: m.value }))]);
    return hist.some((ls) => matchesAnySet(ls, sets));
  });
}

/** SKIP_RULES, checked in order; the first that applies gives the reason. */
export const SKIP_RULES: readonly SkipRule[] = [
  { reason: NATIVE_HISTOGRAM, applies: (cmd) => cmd.rawExpected.some((l) => l.includes('{{')) },
  { reason: NATIVE_HISTOGRAM, applies: (cmd, ctx) => readsHistograms(cmd.query, ctx.histogramSeries) },
  { reason: `${NATIVE_HISTOGRAM}: histogram trim operators </ and >/`, applies: (cmd) => /[<>]\//.test(cmd.query) },
  // Start timestamps are experimental in Prometheus 3 (a per-sample start time next to the value);
  // not chosen: the storage contract holds one float per timestamp and nothing else.
  { reason: 'experimental syntax not chosen: start timestamps (`metric@st` series)', applies: (_cmd, ctx) => ctx.startTimestamps },
];

/** skipReason returns why an eval is skipped, or null when it runs. */
export function skipReason(cmd: EvalCommand, ctx: SkipContext): string | null {
  for (const r of SKIP_RULES) if (r.applies(cmd, ctx)) return r.reason;
  return null;
}
