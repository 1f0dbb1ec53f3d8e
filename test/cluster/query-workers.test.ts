// tsdb-select with -search.queryWorkers: the rollups of the cluster's range queries run on query
// workers over the series the storage nodes answer, with exactly the answers of the event loop.

import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from '../tsdb/harness.ts';
import { startInsert, startSelect, startStorage } from './harness.ts';

afterAll(killAll);

const MIN = 60_000;

describe('tsdb-select with query workers', () => {
  it('answers range queries as without them, the rollups evaluated on its workers', async () => {
    const node = await startStorage();
    const [insert, pooled, loop] = await Promise.all([
      startInsert([node]),
      startSelect([node], ['-search.queryWorkers=2', '-search.disableCache']),
      startSelect([node], ['-search.queryWorkers=0', '-search.disableCache']),
    ]);
    // 300 counters over 2 h, queried at 1,440 steps: more than one batch of work (BATCH_WORK).
    const end = Math.floor(Date.now() / MIN) * MIN;
    const start = end - 2 * 60 * MIN;
    const lines: string[] = [];
    for (let k = 0; k < 300; k++) for (let i = 0; i <= 120; i++) lines.push(`req{job="j${k % 4}",k="${k}"} ${(i * (k + 1)) % 997} ${start + i * MIN}`);
    const w = await fetch(`${insert.base}/insert/0/prometheus/api/v1/import/prometheus`, { method: 'POST', body: lines.join('\n') });
    expect(w.status).toBe(204);
    const query = async (base: string, q: string): Promise<unknown> => {
      const params = new URLSearchParams({ query: q, start: String(start / 1000), end: String(end / 1000), step: '5s' });
      const r = await fetch(`${base}/select/0/prometheus/api/v1/query_range?${params}`);
      expect(r.status).toBe(200);
      return ((await r.json()) as { data: unknown }).data;
    };
    for (let i = 0; ; i++) {
      const d = (await query(loop.base, 'count(req)')) as { result: { values: [number, string][] }[] };
      if (d.result[0]?.values.some((v) => v[1] === '300') === true) break;
      if (i > 100) throw new Error('the rows never became searchable');
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const q of ['rate(req[5m])', 'sum by (job) (increase(req[10m]))', 'max_over_time(req[15m])']) {
      const want = await query(loop.base, q);
      expect((want as { result: unknown[] }).result.length).toBeGreaterThan(0);
      expect(await query(pooled.base, q), q).toEqual(want);
    }
    const metrics = await (await fetch(`${pooled.base}/metrics`)).text();
    expect(metrics).toMatch(/^tsdb_query_workers_max 2$/m);
    expect(metrics).toMatch(/^tsdb_query_workers_started_total\{reason="first"\} [1-9]/m);
    expect(await (await fetch(`${loop.base}/metrics`)).text()).not.toMatch(/^tsdb_query_workers_max/m);
  }, 240_000);
});
