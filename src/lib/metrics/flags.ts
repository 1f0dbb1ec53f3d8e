import { arrayFlag, durationFlag } from '../flags/index.ts';
import type { Logger } from '../logger/index.ts';
import { checkExtraLabel, startPushMetrics } from './push.ts';
import { writeMetrics } from './registry.ts';

const pushURLs = arrayFlag('pushmetrics.url', 'URLs to push the /metrics content to, e.g. http://tsdb:8428/api/v1/import/prometheus; repeat the flag or separate by commas');
const pushInterval = durationFlag('pushmetrics.interval', '10s', 'Interval for pushing metrics to -pushmetrics.url');
const pushExtraLabels = arrayFlag('pushmetrics.extraLabel', 'Extra labels added to metrics pushed to -pushmetrics.url, as name="value"; repeatable', { validate: checkExtraLabel });

/** startPushMetricsFromFlags starts -pushmetrics.* and returns the stop function. */
export function startPushMetricsFromFlags(logger: Logger): () => void {
  return startPushMetrics({
    urls: pushURLs.value,
    intervalMs: pushInterval.value,
    extraLabels: pushExtraLabels.value,
    render: writeMetrics,
    logger,
  });
}
