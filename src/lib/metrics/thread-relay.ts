// Metrics of a binary serving from several threads (relayMetricsFromThisThread, in registry.ts, starts it). Each thread has its own module instances and so
// its own registry; the first thread's registry is the one /metrics renders. Further threads count
// into their registries as usual and hand over what changed (counter increments, raw summary
// observations) as a MetricsDelta, which the first thread adds to its own metrics of the same names.
// Gauges are not relayed: they describe the first thread (process metrics cover the whole process)
// or are read at scrape time from state the threads share.
import { Counter } from './prom.ts';
import { registeredMetric, registeredMetrics } from './registry.ts';
import { WindowedSummary } from './windowed-summary.ts';

/** MetricsDelta is what a thread's counters and summaries recorded since its previous delta. */
export interface MetricsDelta {
  readonly counters: ReadonlyArray<{ readonly name: string; readonly labels: Record<string, string | number>; readonly inc: number }>;
  readonly summaries: ReadonlyArray<{ readonly name: string; readonly labelValues: string[]; readonly values: number[] }>;
}

const lastSent = new Map<string, number>();

/** takeMetricsDelta collects this thread's counter increments and observations since the last call. */
export async function takeMetricsDelta(): Promise<MetricsDelta> {
  const counters: Array<MetricsDelta['counters'][number]> = [];
  const summaries: Array<MetricsDelta['summaries'][number]> = [];
  for (const m of registeredMetrics()) {
    if (m instanceof WindowedSummary) {
      for (const o of m.takeObservations()) summaries.push({ name: m.name, ...o });
      continue;
    }
    if (!(m instanceof Counter)) continue;
    const data = await m.get();
    for (const v of data.values) {
      const key = `${data.name}\u0000${JSON.stringify(v.labels)}`;
      const last = lastSent.get(key) ?? 0;
      // A counter read from a cumulative figure that restarted counts from zero again.
      const inc = v.value >= last ? v.value - last : v.value;
      lastSent.set(key, v.value);
      if (inc > 0) counters.push({ name: data.name, labels: v.labels as Record<string, string | number>, inc });
    }
  }
  return { counters, summaries };
}

/**
 * applyMetricsDelta adds another thread's delta to this thread's metrics of the same names. A name
 * this thread does not declare is skipped: both threads run the same code, so it cannot happen
 * short of a bug, and metrics must never fail a request.
 */
export function applyMetricsDelta(d: MetricsDelta): void {
  for (const c of d.counters) {
    const m = registeredMetric(c.name);
    if (m instanceof Counter) m.inc(c.labels, c.inc);
  }
  for (const s of d.summaries) {
    const m = registeredMetric(s.name);
    if (!(m instanceof WindowedSummary)) continue;
    const child = m.labels(...s.labelValues);
    for (const v of s.values) child.observe(v);
  }
}
