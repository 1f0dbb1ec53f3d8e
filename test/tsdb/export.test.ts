// Export routes of the tsdb process: JSON lines (match[], start, end, max_rows_per_line), CSV
// (every timestamp unit; the output re-imports through /api/v1/import/csv), native, and that a
// large export streams: the process RSS does not grow with the size of the response.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { native } from '../../src/lib/protoparser/index.ts';
import { encodeParams, exportSeries, get, parseExportLines, post, type Series } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, rssBytes, sleep, startTsdb, type Tsdb } from './harness.ts';

const TMS = 1_700_000_000_000;

let tsdb: Tsdb;
// exp_a{host="h0".."h2"}: 10 samples 10 s apart, values i + 0.5·host; exp_b{host="h0"}: 3 samples.
beforeAll(async () => {
  tsdb = await startTsdb(await makeTempDir('export'), ['-retentionPeriod=100y']);
  const lines: string[] = [];
  for (let h = 0; h < 3; h++) {
    for (let i = 0; i < 10; i++) lines.push(`exp_a{host="h${h}",dc="eu, west"} ${i + 0.5 * h} ${TMS + i * 10_000}`);
  }
  for (let i = 0; i < 3; i++) lines.push(`exp_b{host="h0"} ${i === 0 ? '-0' : -i * 1.25} ${TMS + i * 60_000}`);
  expect((await post(`${tsdb.base}/api/v1/import/prometheus`, lines.join('\n'))).status).toBe(204);
});
afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

const exportText = async (path: string, params: Record<string, string | string[]>) => {
  const r = await get(`${tsdb.base}${path}?${encodeParams(params)}`);
  expect(r.status, r.text).toBe(200);
  return r;
};

describe('/api/v1/export', () => {
  it('selects by match[] (several are OR-ed), start and end (inclusive, any accepted time form)', async () => {
    const f = async (params: Record<string, string | string[]>, want: Array<[string, number[]]>) => {
      const got = await exportSeries(tsdb.base, params['match[]']!, Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'match[]')) as Record<string, string>);
      expect(got.map((s) => [`${s.metric.__name__}/${s.metric.host}`, s.timestamps.map((t) => (t - TMS) / 1000)])).toEqual(want);
    };
    const all = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90];
    await f({ 'match[]': 'exp_a{host="h1"}', start: '0' }, [['exp_a/h1', all]]);
    await f({ 'match[]': ['exp_a{host="h2"}', 'exp_b'], start: '0' }, [['exp_a/h2', all], ['exp_b/h0', [0, 60, 120]]]);
    // Unix seconds, unix ms and RFC 3339 bounds, both inclusive.
    await f({ 'match[]': 'exp_a{host="h0"}', start: String(TMS / 1000 + 20), end: String(TMS + 40_000) }, [['exp_a/h0', [20, 30, 40]]]);
    await f({ 'match[]': 'exp_b', start: new Date(TMS + 60_000).toISOString() }, [['exp_b/h0', [60, 120]]]);
    // Without start, the export starts at 0: everything.
    await f({ 'match[]': 'exp_b' }, [['exp_b/h0', [0, 60, 120]]]);
    await f({ 'match[]': 'exp_nothing', start: '0' }, []);
  });

  it('writes one line per series, or lines of at most max_rows_per_line samples', async () => {
    const r = await exportText('/api/v1/export', { 'match[]': 'exp_a{host="h0"}', start: '0', max_rows_per_line: '4' });
    expect(r.headers.get('content-type')).toBe('application/stream+json');
    const lines = parseExportLines(r.text);
    expect(lines.map((l) => l.timestamps.length)).toEqual([4, 4, 2]);
    expect(lines.every((l) => l.metric.dc === 'eu, west' && l.metric.host === 'h0')).toBe(true);
    expect(lines.flatMap((l) => l.values)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const one = parseExportLines((await exportText('/api/v1/export', { 'match[]': 'exp_b', start: '0' })).text);
    expect(one).toEqual([{ metric: { __name__: 'exp_b', host: 'h0' }, timestamps: [TMS, TMS + 60_000, TMS + 120_000], values: [-0, -1.25, -2.5] }]);
  });

  it('answers 400 naming the parameter for a missing or bad match[], start or max_rows_per_line', async () => {
    const f = async (query: string, want: string) => {
      const r = await get(`${tsdb.base}/api/v1/export?${query}`);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text)).toMatchObject({ status: 'error', errorType: 'bad_data' });
      expect(r.text).toContain(want);
    };
    await f('', 'missing \\"match[]\\" arg');
    await f('match[]=exp_a{', 'invalid parameter \\"match[]\\"');
    await f('match[]={x=""}', 'at least one non-empty matcher');
    await f('match[]=exp_a&start=yesterday', 'invalid parameter \\"start\\"');
    await f('match[]=exp_a&max_rows_per_line=-1', 'invalid parameter \\"max_rows_per_line\\"');
  });

  it('is served under /prometheus too, for GET and POST', async () => {
    const viaGet = await get(`${tsdb.base}/prometheus/api/v1/export?match[]=exp_b&start=0`);
    const viaPost = await post(`${tsdb.base}/prometheus/api/v1/export`, 'match[]=exp_b&start=0', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(viaGet.status).toBe(200);
    expect(viaPost.text).toBe(viaGet.text);
    expect(parseExportLines(viaGet.text)).toHaveLength(1);
  });
});

describe('/api/v1/export/csv', () => {
  it('writes the format columns for every timestamp unit, quoting fields that need it', async () => {
    const f = async (format: string, want: string) => {
      const r = await exportText('/api/v1/export/csv', { 'match[]': 'exp_b', start: '0', end: String(TMS + 60_000), format });
      expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(r.text).toBe(want);
    };
    await f('__name__,__value__,__timestamp__:unix_s', 'exp_b,-0,1700000000\nexp_b,-1.25,1700000060\n');
    await f('__timestamp__:unix_ms,__value__', `${TMS},-0\n${TMS + 60_000},-1.25\n`);
    await f('__timestamp__,host', `${TMS},h0\n${TMS + 60_000},h0\n`);
    await f('__timestamp__:unix_ns,__value__', `${TMS}000000,-0\n${TMS + 60_000}000000,-1.25\n`);
    await f('__timestamp__:rfc3339,missing_label,__value__', '2023-11-14T22:13:20Z,,-0\n2023-11-14T22:14:20Z,,-1.25\n');
    const quoted = await exportText('/api/v1/export/csv', { 'match[]': 'exp_a{host="h0"}', start: '0', end: String(TMS), format: 'dc,__value__' });
    expect(quoted.text).toBe('"eu, west",0\n');
  });

  it('writes CSV that /api/v1/import/csv reads back into the same series', async () => {
    const other = await startTsdb(await makeTempDir('export-csv'), ['-retentionPeriod=100y']);
    const format = '__name__,host,dc,__value__,__timestamp__:unix_ms';
    const csv = await exportText('/api/v1/export/csv', { 'match[]': ['exp_a', 'exp_b'], start: '0', format });
    const r = await post(`${other.base}/api/v1/import/csv?format=1:label:__name__,2:label:host,3:label:dc,4:metric:value,5:time:unix_ms`, csv.text);
    expect(r.status, r.text).toBe(204);
    const want = await exportSeries(tsdb.base, ['exp_a', 'exp_b'], { start: '0' });
    expect(await exportSeries(other.base, ['exp_a', 'exp_b'], { start: '0' })).toEqual(want);
    expect(want).toHaveLength(4);
    await other.stop();
  });

  it('answers 400 for a missing or bad format', async () => {
    const f = async (format: string | undefined, want: string) => {
      const r = await get(`${tsdb.base}/api/v1/export/csv?${encodeParams({ 'match[]': 'exp_b', ...(format === undefined ? {} : { format }) })}`);
      expect(r.status).toBe(400);
      expect(r.text).toContain(want);
    };
    await f(undefined, 'missing \\"format\\" arg');
    await f('__timestamp__:minutes', 'unknown timestamp unit');
  });
});

describe('/api/v1/export/native', () => {
  it('holds exactly what the JSON export holds', async () => {
    const r = await exportText('/api/v1/export/native', { 'match[]': ['exp_a', 'exp_b'], start: '0' });
    const decoded = native.parse(r.body).map((s): Series => ({
      metric: Object.fromEntries(s.labels.map((l) => [l.name, l.value])), timestamps: [...s.timestamps], values: [...s.values],
    }));
    const json = await exportSeries(tsdb.base, ['exp_a', 'exp_b'], { start: '0' });
    expect(decoded.sort((a, b) => (JSON.stringify(a.metric) < JSON.stringify(b.metric) ? -1 : 1))).toEqual(json.sort((a, b) => (JSON.stringify(a.metric) < JSON.stringify(b.metric) ? -1 : 1)));
  });
});

describe('a large export', () => {
  it('streams: RSS stays within a bound far below the size of the response', { timeout: 120_000 }, async () => {
    const big = await startTsdb(await makeTempDir('export-big'), ['-retentionPeriod=100y']);
    // 1000 series × 400 samples with long labels; one sample per line makes ~300 MB of JSON. The
    // response must dwarf what a busy V8 heap grows by anyway (~100 MB of uncollected garbage).
    const series = 1000;
    const points = 400;
    for (let from = 0; from < series; from += 250) {
      const lines: string[] = [];
      for (let s = from; s < from + 250; s++) {
        const timestamps = Array.from({ length: points }, (_, i) => TMS + i * 15_000);
        const metric = { __name__: 'big_export', instance: `host-${String(s).padStart(6, '0')}.rack-42.eu-west-3.example.internal:9100`, job: 'node-exporter-fleet', s: String(s), path: `/srv/metrics/${'segment/'.repeat(75)}${s}` };
        lines.push(JSON.stringify({ metric, values: timestamps.map((_, i) => (s * 7919 + i * 104_729) % 1_000_003 / 1000), timestamps }));
      }
      expect((await post(`${big.base}/api/v1/import`, lines.join('\n'))).status).toBe(204);
    }
    expect((await post(`${big.base}/internal/force_flush`)).status).toBe(200);
    // Warm up the export path on a small part of the data, then take the baseline.
    const small = await get(`${big.base}/api/v1/export?match[]={__name__="big_export",s=~"1.."}&start=0&max_rows_per_line=1`);
    expect(small.status).toBe(200);
    await sleep(200);
    const baseline = await rssBytes(big.pid);

    let peak = baseline;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssBytes(big.pid));
        await sleep(20);
      }
    })();
    const res = await fetch(`${big.base}/api/v1/export?match[]=big_export&start=0&max_rows_per_line=1`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body!) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
    }
    sampling = false;
    await sampler;
    expect(lines).toBe(series * points);
    expect(bytes).toBeGreaterThan(256 * 2 ** 20);
    // Holding the response (or all matching samples) would add at least its size; streaming adds a bounded amount.
    expect(peak - baseline, `baseline ${baseline >> 20} MiB, peak ${peak >> 20} MiB, response ${bytes >> 20} MiB`).toBeLessThan(bytes / 2);
    await big.stop();
  });
});
