// Read API of the tsdb process over HTTP (the query engine itself is tested elsewhere): methods,
// /prometheus aliases, time arguments, error envelopes and limits, index routes with their day
// ranges, federate, graphite find, extra filters, and the rollup result cache staying correct.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeParams, get, getJson, metricValue, post, postForm } from './client.ts';
import { clearOfDayEnd, killAll, makeTempDir, removeTempDirs, startTsdb, type Tsdb } from './harness.ts';

// The data below is "the last hour" and several routes answer for today: the whole file runs in one UTC day.
await clearOfDayEnd(120_000);
const DAY = 86_400_000;
const NOW = Date.now();
const TODAY = Math.floor(NOW / DAY) * DAY;
// Samples every minute over the last hour, on minute boundaries.
const START = Math.floor((NOW - 3_600_000) / 60_000) * 60_000;

let tsdb: Tsdb;
beforeAll(async () => {
  tsdb = await startTsdb(await makeTempDir('read'));
  const lines: string[] = [];
  for (let i = 0; i <= 60; i++) {
    const ts = START + i * 60_000;
    for (const job of ['a', 'b', 'c']) lines.push(`rd_req_total{job="${job}",env="${job === 'c' ? 'dev' : 'prod'}"} ${i * 10 * (job.charCodeAt(0) - 96)} ${ts}`);
  }
  // Graphite-style names, and one series two days back (outside the default day range of index routes).
  lines.push(`rd_old{when="2d"} 1 ${TODAY - 2 * DAY + 3_600_000}`);
  await load(tsdb, lines.join('\n'));
  const dotted = ['srv.web01.cpu', 'srv.web01.mem', 'srv.web02.cpu', 'srv.db'].map((name) => JSON.stringify({ metric: { __name__: name }, values: [1], timestamps: [NOW - 60_000] }));
  expect((await post(`${tsdb.base}/api/v1/import`, dotted.join('\n'))).status).toBe(204);
});
afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

async function load(t: Tsdb, text: string): Promise<void> {
  const r = await post(`${t.base}/api/v1/import/prometheus`, text);
  expect(r.status, r.text).toBe(204);
}

interface QueryResponse {
  status: string;
  data: { resultType: string; result: Array<{ metric: Record<string, string>; value?: [number, string]; values?: Array<[number, string]> }> };
  stats?: { seriesFetched: string; executionTimeMsec: number };
}

const jobsOf = (r: QueryResponse) => r.data.result.map((s) => s.metric.job).sort();

describe('/api/v1/query and /api/v1/query_range', () => {
  it('answer GET and form POST, also under /prometheus, in the Prometheus envelope', async () => {
    const t = String((START + 30 * 60_000) / 1000);
    const viaGet = await getJson<QueryResponse>(`${tsdb.base}/api/v1/query`, { query: 'sum by (env) (rd_req_total)', time: t });
    expect(viaGet.status).toBe('success');
    expect(viaGet.stats).toEqual({ seriesFetched: '3', executionTimeMsec: expect.any(Number) });
    expect(viaGet.data.resultType).toBe('vector');
    expect(viaGet.data.result.map((s) => [s.metric.env, s.value])).toEqual(expect.arrayContaining([['prod', [Number(t), '900']], ['dev', [Number(t), '900']]]));
    const viaPost = await postForm(`${tsdb.base}/api/v1/query`, { query: 'sum by (env) (rd_req_total)', time: t });
    const viaPrefix = await get(`${tsdb.base}/prometheus/api/v1/query?${encodeParams({ query: 'sum by (env) (rd_req_total)', time: t })}`);
    const data = (text: string) => (JSON.parse(text) as QueryResponse).data;
    expect(data(viaPost.text)).toEqual(viaGet.data);
    expect(data(viaPrefix.text)).toEqual(viaGet.data);
    // A bare range selector is a matrix; the window (t-3m, t] is open on the left, as in Prometheus 3.
    const m = await getJson<QueryResponse>(`${tsdb.base}/api/v1/query`, { query: 'rd_req_total{job="a"}[3m]', time: t });
    expect(m.data.resultType).toBe('matrix');
    expect(m.data.result[0]!.values!.map(([, v]) => v)).toEqual(['280', '290', '300']);
  });

  it('query_range takes a relative start (-1h), a duration step and form POST', async () => {
    const end = START / 1000 + 3600;
    const sent = Date.now() / 1000;
    const r = await getJson<QueryResponse>(`${tsdb.base}/api/v1/query_range`, { query: 'rd_req_total{job="b"}', start: '-1h', end: String(end), step: '10m' });
    expect(r.data.resultType).toBe('matrix');
    const stamps = r.data.result[0]!.values!.map(([ts]) => ts);
    // -1h is an hour before the request; steps go from there, 10 minutes apart, up to end.
    expect(stamps[0]).toBeGreaterThanOrEqual(sent - 3600 - 1);
    expect(stamps[0]).toBeLessThanOrEqual(Date.now() / 1000 - 3600 + 1);
    expect(stamps.slice(1).map((ts, i) => Math.round((ts - stamps[i]!) * 1000))).toEqual(stamps.slice(1).map(() => 600_000));
    expect(stamps.at(-1)).toBeLessThanOrEqual(end);
    const viaPost = await postForm(`${tsdb.base}/prometheus/api/v1/query_range`, { query: 'rd_req_total{job="b"}', start: String(START / 1000), end: String(end), step: '10m' });
    expect((JSON.parse(viaPost.text) as QueryResponse).data.result[0]!.values).toEqual([0, 1, 2, 3, 4, 5, 6].map((k) => [START / 1000 + k * 600, String(k * 200)]));
  });

  it('answers 400 JSON naming the position of a syntax error, and the parameter of a bad time', async () => {
    const f = async (path: string, params: Record<string, string>, want: RegExp) => {
      const r = await get(`${tsdb.base}${path}?${encodeParams(params)}`);
      expect(r.status).toBe(400);
      const body = JSON.parse(r.text) as { status: string; errorType: string; error: string };
      expect(body).toMatchObject({ status: 'error', errorType: 'bad_data' });
      expect(body.error).toMatch(want);
    };
    await f('/api/v1/query', { query: 'sum(rate(rd_req_total[5m]) by (job)' }, /1:\d+/);
    await f('/api/v1/query', { query: 'rd_req_total{job="a"' }, /1:\d+/);
    await f('/api/v1/query', {}, /missing "query" arg/);
    await f('/api/v1/query_range', { query: 'up', start: 'yesterday' }, /invalid parameter "start"/);
    await f('/api/v1/query_range', { query: 'up', step: '-5s' }, /invalid parameter "step"/);
  });
});

describe('read limits', () => {
  let limited: Tsdb;
  beforeAll(async () => {
    limited = await startTsdb(await makeTempDir('read-limits'), ['-search.maxPointsPerTimeseries=50', '-search.maxUniqueTimeseries=4', '-search.maxSeries=2']);
    await load(limited, [...[1, 2, 3, 4, 5].map((i) => `lim_many{i="${i}"} ${i} ${START}`), ...[1, 2, 3].map((i) => `lim_three{i="${i}"} ${i} ${START}`)].join('\n'));
  });

  it('answers 422 naming the flag whose limit a request exceeds', async () => {
    const f = async (path: string, params: Record<string, string>, flag: string) => {
      const r = await get(`${limited.base}${path}?${encodeParams(params)}`);
      expect(r.status, r.text).toBe(422);
      expect(JSON.parse(r.text)).toMatchObject({ status: 'error', errorType: 'execution', error: expect.stringContaining(`-${flag}`) });
      expect(r.text).not.toContain(`--${flag}`);
    };
    await f('/api/v1/query_range', { query: 'lim_three', start: '-1h', step: '60' }, 'search.maxPointsPerTimeseries');
    await f('/api/v1/query', { query: 'lim_many', time: String(START / 1000) }, 'search.maxUniqueTimeseries');
    await f('/api/v1/query', { query: 'lim_three[1d:1s]', time: String(START / 1000) }, 'search.maxPointsPerTimeseries');
    await f('/api/v1/series', { 'match[]': 'lim_three', start: String(START / 1000) }, 'search.maxSeries');
  });

  it('caps a series limit arg at -search.maxSeries', async () => {
    const f = async (limit: string, want: number) => {
      const r = await getJson<{ data: unknown[] }>(`${limited.base}/api/v1/series`, { 'match[]': 'lim_three', start: String(START / 1000), limit });
      expect(r.data).toHaveLength(want);
    };
    await f('1', 1);
    await f('10', 2);
  });
});

describe('index routes', () => {
  it('series, labels and label values default to the current UTC day and round explicit ranges to whole days', async () => {
    const series = async (params: Record<string, string>) => (await getJson<{ data: Array<Record<string, string>> }>(`${tsdb.base}/api/v1/series`, { 'match[]': '{__name__=~"rd_.+"}', ...params })).data.map((s) => s.__name__).sort();
    // rd_old is from two days back: outside the default range.
    const today = await series({});
    expect(today).not.toContain('rd_old');
    expect(today).toContain('rd_req_total');
    // start = end = late that day: rounding widens to the whole day, which holds rd_old's sample at 01:00.
    const late = String((TODAY - 2 * DAY + 23 * 3_600_000) / 1000);
    expect(await series({ start: late, end: late })).toEqual(['rd_old']);
    expect(await series({ start: String((TODAY - 3 * DAY) / 1000) })).toContain('rd_old');

    const labels = await getJson<{ status: string; data: string[] }>(`${tsdb.base}/api/v1/labels`);
    expect(labels.status).toBe('success');
    expect(labels.data).toEqual(expect.arrayContaining(['__name__', 'env', 'job']));
    expect(labels.data).not.toContain('when');
    expect((await getJson<{ data: string[] }>(`${tsdb.base}/api/v1/labels`, { start: late, end: late })).data).toEqual(['__name__', 'when']);
    expect((await getJson<{ data: string[] }>(`${tsdb.base}/api/v1/label/job/values`)).data).toEqual(['a', 'b', 'c']);
    expect((await getJson<{ data: string[] }>(`${tsdb.base}/prometheus/api/v1/label/when/values`, { start: late })).data).toEqual(['2d']);
    expect((await getJson<{ data: string[] }>(`${tsdb.base}/api/v1/label/job/values`, { 'match[]': '{env="dev"}' })).data).toEqual(['c']);
  });

  it('/api/v1/series/count and /api/v1/status/tsdb answer with their documented shapes', async () => {
    const count = await getJson<{ status: string; data: number[] }>(`${tsdb.base}/api/v1/series/count`);
    // 3 rd_req_total, rd_old and 4 dotted names.
    expect(count).toEqual({ status: 'success', data: [8] });
    // Ask for the day of the dotted samples (NOW - 1 min): rd_req_total has samples in it too, rd_old has not.
    // Without `date` the route answers for today, which near midnight is a different day.
    const date = new Date(NOW - 60_000).toISOString().slice(0, 10);
    const status = await getJson<{ status: string; data: Record<string, unknown> }>(`${tsdb.base}/api/v1/status/tsdb`, { focusLabel: 'job', date });
    expect(status.status).toBe('success');
    expect(Object.keys(status.data).sort()).toEqual(['labelValueCountByLabelName', 'seriesCountByFocusLabelValue', 'seriesCountByLabelName', 'seriesCountByLabelValuePair', 'seriesCountByMetricName', 'totalLabelValuePairs', 'totalSeries']);
    expect(status.data.seriesCountByMetricName).toEqual(expect.arrayContaining([{ name: 'rd_req_total', value: 3 }]));
    expect(status.data.seriesCountByFocusLabelValue).toEqual([{ name: 'a', value: 1 }, { name: 'b', value: 1 }, { name: 'c', value: 1 }]);
    expect(status.data.labelValueCountByLabelName).toEqual(expect.arrayContaining([{ name: 'job', value: 3 }, { name: 'env', value: 2 }]));
    expect(status.data.totalSeries).toBe(7);
    // Without `date` it is today's.
    const byDefault = await getJson<{ data: unknown }>(`${tsdb.base}/api/v1/status/tsdb`, { focusLabel: 'job' });
    const byToday = await getJson<{ data: unknown }>(`${tsdb.base}/api/v1/status/tsdb`, { focusLabel: 'job', date: new Date().toISOString().slice(0, 10) });
    expect(byDefault.data).toEqual(byToday.data);
    const badDate = await get(`${tsdb.base}/api/v1/status/tsdb?date=2024-13-45`);
    expect(badDate.status).toBe(400);
    expect(JSON.parse(badDate.text)).toMatchObject({ errorType: 'bad_data', error: expect.stringContaining('invalid parameter "date"') });
  });
});

describe('federate and graphite find', () => {
  it('/federate writes the newest sample of each matching series in the text format', async () => {
    const r = await get(`${tsdb.base}/federate?${encodeParams({ 'match[]': 'rd_req_total{job=~"a|b"}', time: String((START + 60 * 60_000) / 1000) })}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text.trim().split('\n').sort()).toEqual([
      `rd_req_total{env="prod",job="a"} 600 ${START + 60 * 60_000}`,
      `rd_req_total{env="prod",job="b"} 1200 ${START + 60 * 60_000}`,
    ]);
  });

  it('/graphite/metrics/find lists the nodes at the depth of the query', async () => {
    const f = async (query: string, want: Array<[string, 0 | 1]>) => {
      const r = await getJson<Array<{ id: string; text: string; leaf: 0 | 1; allowChildren: 0 | 1; expandable: 0 | 1 }>>(`${tsdb.base}/graphite/metrics/find`, { query });
      expect(r.map((n) => [n.id, n.leaf])).toEqual(want);
      for (const n of r) expect(n).toEqual({ id: n.id, text: n.id.split('.').at(-1), leaf: n.leaf, allowChildren: (1 - n.leaf) as 0 | 1, expandable: (1 - n.leaf) as 0 | 1 });
    };
    await f('srv.*', [['srv.db', 1], ['srv.web01', 0], ['srv.web02', 0]]);
    await f('srv.web0{1,2}.cpu', [['srv.web01.cpu', 1], ['srv.web02.cpu', 1]]);
    await f('srv.web01.m*', [['srv.web01.mem', 1]]);
    const bad = await get(`${tsdb.base}/graphite/metrics/find`);
    expect(bad.status).toBe(400);
  });
});

describe('extra_label and extra_filters[] on reads', () => {
  it('confine queries, exports and index routes to the allowed series', async () => {
    const t = String((START + 10 * 60_000) / 1000);
    const q = async (params: Record<string, string | string[]>) => jobsOf(await getJson<QueryResponse>(`${tsdb.base}/api/v1/query`, { query: 'rd_req_total', time: t, ...params }));
    expect(await q({})).toEqual(['a', 'b', 'c']);
    expect(await q({ extra_label: 'job=a' })).toEqual(['a']);
    expect(await q({ 'extra_filters[]': ['{job="a"}', '{env="dev"}'] })).toEqual(['a', 'c']);
    expect(await q({ extra_label: 'env=prod', 'extra_filters[]': ['{job="a"}', '{job="c"}'] })).toEqual(['a']);
    const exp = await get(`${tsdb.base}/api/v1/export?${encodeParams({ 'match[]': 'rd_req_total', start: '0', extra_label: 'job=b' })}`);
    expect(exp.text.trim().split('\n').map((l) => (JSON.parse(l) as { metric: Record<string, string> }).metric.job)).toEqual(['b']);
    expect((await getJson<{ data: string[] }>(`${tsdb.base}/api/v1/label/job/values`, { extra_filters: '{env="dev"}' })).data).toEqual(['c']);
    expect((await getJson<{ data: unknown[] }>(`${tsdb.base}/api/v1/series`, { 'match[]': 'rd_req_total', extra_label: 'job=c' })).data).toHaveLength(1);
  });
});

describe('the rollup result cache', () => {
  it('/internal/resetRollupResultCache answers HEAD, GET and POST', async () => {
    for (const method of ['HEAD', 'GET', 'POST']) expect((await fetch(`${tsdb.base}/internal/resetRollupResultCache`, { method })).status).toBe(200);
  });

  it('returns what nocache=1 returns after new data, a backfill and delete_series', async () => {
    const end = Math.floor(Date.now() / 60_000) * 60_000;
    const params = { query: 'sum by (job) (rd_req_total{job=~"a|b"})', start: String(START / 1000), end: String(end / 1000), step: '60' };
    const range = async (extra: Record<string, string> = {}) => (JSON.parse((await get(`${tsdb.base}/api/v1/query_range?${encodeParams({ ...params, ...extra })}`)).text) as QueryResponse).data;
    const same = async () => {
      const cached = await range();
      expect(cached).toEqual(await range({ nocache: '1' }));
      return cached;
    };
    const first = await same();
    await expect.poll(async () => metricValue((await get(`${tsdb.base}/metrics`)).text, 'tsdb_rollup_result_cache_entries'), { timeout: 2_000 }).toBeGreaterThan(0);
    // New samples beyond what the cache holds.
    await load(tsdb, `rd_req_total{job="a",env="prod"} 5000 ${end - 60_000}`);
    expect(await same()).not.toEqual(first);
    // A backfill inside the cached range: a new job="a" series adds 7777 to the sum at 31m (310 + 7777).
    await load(tsdb, `rd_req_total{job="a",env="backfill"} 7777 ${START + 30 * 60_000 + 30_000}`);
    const afterBackfill = await same();
    expect(afterBackfill.result[0]!.values).toContainEqual([(START + 31 * 60_000) / 1000, '8087']);
    // A deletion.
    expect((await post(`${tsdb.base}/api/v1/admin/tsdb/delete_series?match[]=rd_req_total{job="b"}`)).status).toBe(204);
    const afterDelete = await same();
    expect(afterDelete.result.map((s) => s.metric.job)).toEqual(['a']);
    // And the reset route empties it.
    const entries = async () => metricValue((await get(`${tsdb.base}/metrics`)).text, 'tsdb_rollup_result_cache_entries');
    await expect.poll(entries, { timeout: 2_000 }).toBeGreaterThan(0);
    expect((await fetch(`${tsdb.base}/internal/resetRollupResultCache`, { method: 'HEAD' })).status).toBe(200);
    await expect.poll(entries, { timeout: 2_000 }).toBe(0);
  });
});
