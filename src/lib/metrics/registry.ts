import type client from 'prom-client';
import type { BuildInfo } from '../buildinfo/index.ts';
import { Counter as PromCounter, Gauge as PromGauge, Histogram as PromHistogram, loadDefaultCollectors, Registry } from './prom.ts';
import { WindowedSummary } from './windowed-summary.ts';

/**
 * The process metrics registry. Components declare metrics at the top of the file that updates
 * them through the helpers below; /metrics and -pushmetrics.url render this one registry.
 * Declaring the same name twice returns the first declaration (so a module imported by several
 * components shares its metrics), but only with the same type.
 */
export const processRegistry = new Registry();

export type Counter<L extends string = string> = client.Counter<L>;
export type Gauge<L extends string = string> = client.Gauge<L>;
export type Summary<L extends string = string> = WindowedSummary<L>;
export type Histogram<L extends string = string> = client.Histogram<L>;

function existing<T>(name: string, kind: string): T | undefined {
  const m = processRegistry.getSingleMetric(name) as { type?: string } | undefined;
  if (m === undefined) return undefined;
  if (m.type !== kind) throw new Error(`metric ${name} is already declared as a ${String(m.type)}, not a ${kind}`);
  return m as T;
}

/** counter declares a monotonically increasing counter; its name must end in _total. */
export function counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return existing<Counter<L>>(name, 'counter') ?? new PromCounter<L>({ name, help, labelNames, registers: [processRegistry] });
}

/**
 * gauge declares a gauge. With `collect`, the value is read at scrape time (for numbers a pure
 * module keeps in its own stats object).
 */
export function gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = [], collect?: (g: Gauge<L>) => void | Promise<void>): Gauge<L> {
  const found = existing<Gauge<L>>(name, 'gauge');
  if (found !== undefined) return found;
  return new PromGauge<L>({
    name, help, labelNames, registers: [processRegistry],
    ...(collect === undefined ? {} : { collect(this: Gauge<L>) { return collect(this); } }),
  });
}

/**
 * counterFunc declares a counter whose value is read at scrape time from a cumulative number a pure
 * module keeps (storage stats, say). `read` calls `set(labels, value)` for each series.
 */
export function counterFunc<L extends string = never>(
  name: string,
  help: string,
  labelNames: readonly L[],
  read: (set: (labels: Partial<Record<L, string>>, value: number) => void) => void,
): Counter<L> {
  const found = existing<Counter<L>>(name, 'counter');
  if (found !== undefined) return found;
  return new PromCounter<L>({
    name, help, labelNames, registers: [processRegistry],
    collect(this: Counter<L>) {
      this.reset();
      read((labels, value) => {
        if (value > 0) this.inc(labels as Partial<Record<L, string | number>>, value);
      });
    },
  });
}

/** summary declares a summary with quantiles over a sliding 5-minute window. */
export function summary<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Summary<L> {
  const found = existing<Summary<L>>(name, 'summary');
  if (found !== undefined) return found;
  // Not prom-client's Summary: its t-digests stall observe() for milliseconds now and then (windowed-summary.ts).
  const s = new WindowedSummary<L>({ name, help, labelNames, percentiles: [0.5, 0.9, 0.97, 0.99, 1], maxAgeSeconds: 300, ageBuckets: 5 });
  if (summariesForward) s.forwardObservations();
  processRegistry.registerMetric(s as unknown as client.Metric);
  return s;
}

/** histogram declares a histogram with the given bucket bounds (seconds for durations). */
export function histogram<L extends string = never>(name: string, help: string, buckets: readonly number[], labelNames: readonly L[] = []): Histogram<L> {
  return existing<Histogram<L>>(name, 'histogram') ?? new PromHistogram<L>({ name, help, labelNames, buckets: [...buckets], registers: [processRegistry] });
}

let processMetricsStarted = false;

/**
 * registerProcessMetrics adds, once per process, `<prefix>_app_version` and `<prefix>_build_info`,
 * and the process and Node.js collectors (startProcessCollectors) by the first scrape at the latest.
 */
export function registerProcessMetrics(prefix: string, info: BuildInfo): void {
  if (processMetricsStarted) return;
  processMetricsStarted = true;
  gauge(`${prefix}_app_version`, 'Version of the running binary; the value is always 1', ['version', 'short_version'])
    .set({ version: `${prefix}-${info.version}-${info.gitSha}`, short_version: info.version }, 1);
  gauge(`${prefix}_build_info`, 'Build of the running binary; the value is always 1', ['version', 'revision', 'node_version'])
    .set({ version: info.version, revision: info.gitSha, node_version: process.version }, 1);
  beforeScrape(async () => startProcessCollectors());
}

let collectorsStarted = false;

/** PROCESS_CPU_COUNTERS are prom-client's CPU counters and the part of process.cpuUsage() each counts. */
const PROCESS_CPU_COUNTERS = [
  ['process_cpu_user_seconds_total', (u: NodeJS.CpuUsage) => u.user],
  ['process_cpu_system_seconds_total', (u: NodeJS.CpuUsage) => u.system],
  ['process_cpu_seconds_total', (u: NodeJS.CpuUsage) => u.user + u.system],
] as const;

/**
 * startProcessCollectors starts prom-client's collectors, once per process (after
 * registerProcessMetrics; before, it does nothing): CPU, RSS, heap, event-loop lag, GC, open fds
 * and start time. Loading them is ~40 modules, so the binaries start them once they serve
 * (serveUntilSignal) rather than on the start path, and the first scrape before that starts them
 * itself. prom-client's CPU counters count from their start; they get the CPU the process used
 * before it, so they count the whole process. GCs before the start are not counted.
 */
export function startProcessCollectors(): void {
  if (!processMetricsStarted || collectorsStarted) return;
  collectorsStarted = true;
  const collect = loadDefaultCollectors();
  const before = process.cpuUsage();
  collect({ register: processRegistry, eventLoopMonitoringPrecision: 10 });
  for (const [name, part] of PROCESS_CPU_COUNTERS) {
    const m = processRegistry.getSingleMetric(name);
    if (m instanceof PromCounter) m.inc(part(before) / 1e6);
  }
}

let summariesForward = false;

/**
 * relayMetricsFromThisThread switches this thread to relaying (thread-relay.ts): every summary,
 * declared now or later, keeps raw observations for takeMetricsDelta instead of counting them.
 */
export function relayMetricsFromThisThread(): void {
  summariesForward = true;
  for (const m of registeredMetrics()) if (m instanceof WindowedSummary) m.forwardObservations();
}

/** registeredMetrics lists the registry's metrics as objects (prom-client types them as bare MetricObjects). */
export function registeredMetrics(): ReadonlyArray<WindowedSummary<string> | client.Metric> {
  return processRegistry.getMetricsAsArray() as unknown as ReadonlyArray<WindowedSummary<string> | client.Metric>;
}

/** registeredMetric finds a metric of the registry by name. */
export function registeredMetric(name: string): WindowedSummary<string> | client.Metric | undefined {
  return processRegistry.getSingleMetric(name) as unknown as WindowedSummary<string> | client.Metric | undefined;
}

const scrapeHooks: Array<() => Promise<void>> = [];
let renderer: (() => Promise<string>) | undefined;

/** beforeScrape registers work writeMetrics awaits before rendering (collecting other threads' deltas). */
export function beforeScrape(hook: () => Promise<void>): void {
  scrapeHooks.push(hook);
}

/** renderMetricsWith makes writeMetrics answer with render (a thread asking the thread that renders). */
export function renderMetricsWith(render: () => Promise<string>): void {
  renderer = render;
}

/** writeMetrics renders the process registry in the Prometheus text exposition format. */
export async function writeMetrics(): Promise<string> {
  if (renderer !== undefined) return renderer();
  await Promise.all(scrapeHooks.map((h) => h()));
  return processRegistry.metrics();
}

/** METRICS_CONTENT_TYPE is the content type of writeMetrics output. */
export const METRICS_CONTENT_TYPE = processRegistry.contentType;
