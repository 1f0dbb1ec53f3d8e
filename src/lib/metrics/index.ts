export { startPushMetricsFromFlags } from './flags.ts';
export { addExtraLabels, checkExtraLabel, startPushMetrics, type PushOptions } from './push.ts';
export {
  counter, counterFunc, gauge, histogram, METRICS_CONTENT_TYPE, processRegistry, registerProcessMetrics, summary, writeMetrics,
  type Counter, type Gauge, type Histogram, type Summary,
} from './registry.ts';
