export { startPushMetricsFromFlags } from './flags.ts';
export { addExtraLabels, checkExtraLabel, startPushMetrics, type PushOptions } from './push.ts';
export { applyMetricsDelta, takeMetricsDelta, type MetricsDelta } from './thread-relay.ts';
export {
  beforeScrape, counter, counterFunc, gauge, histogram, METRICS_CONTENT_TYPE, processRegistry, registerProcessMetrics, relayMetricsFromThisThread, startProcessCollectors, renderMetricsWith, summary, writeMetrics,
  type Counter, type Gauge, type Histogram, type Summary,
} from './registry.ts';
