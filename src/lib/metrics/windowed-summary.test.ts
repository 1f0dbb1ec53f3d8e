import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { WindowedSummary } from './windowed-summary.ts';

const PERCENTILES = [0.5, 0.9, 0.99, 1];

function make(now: () => number, labelNames: readonly string[] = ['user']) {
  return new WindowedSummary({ name: 'req_seconds', help: 'request durations', labelNames, percentiles: PERCENTILES, maxAgeSeconds: 300, ageBuckets: 5, now });
}

async function quantiles(s: WindowedSummary<string>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const v of (await s.get()).values) if (v.metricName === undefined) out[`${v.labels.user ?? ''}@${v.labels.quantile}`] = v.value;
  return out;
}

describe('WindowedSummary', () => {
  it('estimates quantiles within the bucket width of the exact ones', async () => {
    const s = make(() => 0);
    const c = s.labels('alice');
    const values = Array.from({ length: 10_000 }, (_, i) => 0.0005 + ((i * 7919) % 10_000) * 1e-6);
    for (const v of values) c.observe(v);
    const sorted = [...values].sort((a, b) => a - b);
    const got = await quantiles(s);
    const f = (p: number) => {
      const exact = sorted[Math.floor(p * (sorted.length - 1))]!;
      expect(Math.abs(got[`alice@${p}`]! - exact) / exact).toBeLessThan(0.045);
    };
    f(0.5);
    f(0.9);
    f(0.99);
    expect(got['alice@1']).toBe(sorted.at(-1));
  });

  it('forgets observations older than the window, slot by slot', async () => {
    let now = 0;
    const s = make(() => now);
    s.labels('bob').observe(10);
    now = 100_000;
    s.labels('bob').observe(1);
    // both in the window: the max is the old value
    expect((await quantiles(s))['bob@1']).toBe(10);
    // 300 s after the first observation its slot has been reused; the second is 200 s old
    now = 300_000;
    expect((await quantiles(s))['bob@1']).toBe(1);
    // a long pause clears everything, but _sum and _count stay cumulative
    now = 10_000_000;
    const got = await s.get();
    expect(got.values.filter((v) => v.metricName === undefined).map((v) => v.value)).toEqual([0, 0, 0, 0]);
    expect(got.values.find((v) => v.metricName === 'req_seconds_count')?.value).toBe(2);
    expect(got.values.find((v) => v.metricName === 'req_seconds_sum')?.value).toBe(11);
  });

  it('renders in a prom-client registry as a summary', async () => {
    const reg = new client.Registry();
    const s = make(() => 0);
    reg.registerMetric(s as unknown as client.Metric);
    s.observe({ user: 'carol' }, 0.25);
    s.labels('dave').observe(2);
    s.remove('dave');
    const text = await reg.metrics();
    expect(text).toContain('# TYPE req_seconds summary');
    expect(text).toContain('req_seconds{quantile="0.5",user="carol"} 0.25');
    expect(text).toContain('req_seconds_sum{user="carol"} 0.25');
    expect(text).toContain('req_seconds_count{user="carol"} 1');
    expect(text).not.toContain('dave');
  });

  it('renders a summary without labels before its first observation', async () => {
    const s = make(() => 0, []);
    const got = await s.get();
    expect(got.values.map((v) => v.metricName ?? `q${v.labels.quantile}`)).toEqual(['q0.5', 'q0.9', 'q0.99', 'q1', 'req_seconds_sum', 'req_seconds_count']);
  });

  it('rejects values that are not finite numbers and reserved or missing labels', () => {
    const s = make(() => 0);
    expect(() => s.labels('x').observe(Number.NaN)).toThrow(/cannot observe NaN in summary req_seconds/);
    expect(() => s.labels()).toThrow(/expected 1 label values, got 0/);
    expect(() => make(() => 0, ['quantile'])).toThrow(/reserved/);
  });

  it('puts zero, tiny and huge values in the edge buckets without losing the max', async () => {
    const s = make(() => 0);
    const c = s.labels('e');
    for (const v of [0, 1e-30, 1e30]) c.observe(v);
    const got = await quantiles(s);
    expect(got['e@0.5']).toBe(0);
    expect(got['e@1']).toBe(1e30);
  });

  it('keeps raw observations instead of counting them while forwarding, until taken', async () => {
    const s = new WindowedSummary({ name: 'f', help: 'h', labelNames: ['u'], percentiles: [0.5], maxAgeSeconds: 60, ageBuckets: 2 });
    s.observe({ u: 'a' }, 1);
    s.forwardObservations();
    s.observe({ u: 'a' }, 2);
    s.observe({ u: 'b' }, 3);
    expect(s.takeObservations()).toEqual([{ labelValues: ['a'], values: [2] }, { labelValues: ['b'], values: [3] }]);
    expect(s.takeObservations()).toEqual([]);
    const counts = (await s.get()).values.filter((v) => v.metricName === 'f_count').map((v) => [v.labels.u, v.value]);
    expect(counts).toEqual([['a', 1], ['b', 0]]);
  });
});
