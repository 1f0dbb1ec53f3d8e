import { describe, expect, it } from 'vitest';
import { counter, relayMetricsFromThisThread, summary, writeMetrics } from './registry.ts';
import { applyMetricsDelta, takeMetricsDelta } from './thread-relay.ts';

describe('thread metrics relay', () => {
  it('hands over counter increments since the last delta and raw summary observations, and applies them by name', async () => {
    const requests = counter('relay_test_requests_total', 'requests', ['user']);
    const before = summary('relay_test_before_seconds', 'declared before relaying');
    relayMetricsFromThisThread();
    const after = summary('relay_test_after_seconds', 'declared after relaying', ['user']);
    requests.inc({ user: 'a' }, 3);
    before.observe(0.5);
    after.observe({ user: 'b' }, 2);
    after.observe({ user: 'b' }, 4);
    const first = await takeMetricsDelta();
    expect(first.counters.filter((c) => c.name === 'relay_test_requests_total')).toEqual([{ name: 'relay_test_requests_total', labels: { user: 'a' }, inc: 3 }]);
    expect(first.summaries).toEqual([
      { name: 'relay_test_before_seconds', labelValues: [], values: [0.5] },
      { name: 'relay_test_after_seconds', labelValues: ['b'], values: [2, 4] },
    ]);
    requests.inc({ user: 'a' }, 2);
    const second = await takeMetricsDelta();
    expect(second.counters.filter((c) => c.name === 'relay_test_requests_total').map((c) => c.inc)).toEqual([2]);
    expect(second.summaries).toEqual([]);
    // Applied in a thread that counts (here the same registry, so the counter adds up to 3 + 2 + 5).
    applyMetricsDelta({ counters: [{ name: 'relay_test_requests_total', labels: { user: 'a' }, inc: 5 }, { name: 'relay_test_unknown_total', labels: {}, inc: 1 }], summaries: [] });
    expect(await writeMetrics()).toMatch(/^relay_test_requests_total\{user="a"\} 10$/m);
  });
});
