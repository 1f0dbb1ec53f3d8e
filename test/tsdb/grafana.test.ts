// The tsdb process answers what Grafana's Prometheus data source asks besides queries (issue 17):
// buildinfo, metadata (kept from Prometheus text and remote write, and across a restart),
// exemplars, rules and alerts (proxied to a real vmalert 1.79.5 with -vmalert.proxyURL), config,
// format_query, parse_query, active and top queries; JSON-lines imports of VictoriaMetrics exports
// with bare special values; and a warning in the log for a rejected write.

import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readBuildInfo } from '../../src/lib/buildinfo/index.ts';
import { remotewrite } from '../../src/lib/protoparser/index.ts';
import { encodeParams, exportSeries, get, getJson, post, postForm } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, requireBinary, startBinary, startTsdb } from './harness.ts';
import { freePort } from './interop.ts';

afterEach(killAll);
afterAll(removeTempDirs);

const TMS = Date.now() - 60_000;
const TEXT = [
  '# HELP grafana_requests_total Requests served, by code.',
  '# TYPE grafana_requests_total counter',
  `grafana_requests_total{code="200"} 10 ${TMS}`,
  '# HELP grafana_temperature_celsius Temperature.',
  '# TYPE grafana_temperature_celsius gauge',
  '# UNIT grafana_temperature_celsius celsius',
  `grafana_temperature_celsius 21.5 ${TMS}`,
  '',
].join('\n');

describe('Grafana data source calls', () => {
  it('are answered in Prometheus\' and VictoriaMetrics\' shapes, rules and alerts from vmalert', { timeout: 90_000 }, async () => {
    const vmalertBin = requireBinary('vmalert', 'victoria-metrics');
    const dir = await makeTempDir('grafana');
    const vmalertPort = await freePort();
    const tsdb = await startTsdb(join(dir, 'tsdb'), [`-vmalert.proxyURL=http://127.0.0.1:${vmalertPort}`]);
    const rules = join(dir, 'rules.yml');
    await writeFile(rules, 'groups:\n  - name: strata\n    interval: 1s\n    rules:\n      - alert: AlwaysFiring\n        expr: vector(1)\n');
    const vmalert = startBinary(vmalertBin, [
      `-rule=${rules}`, `-datasource.url=${tsdb.base}`, `-httpListenAddr=127.0.0.1:${vmalertPort}`,
      `-notifier.url=http://127.0.0.1:${await freePort()}`, '-evaluationInterval=1s',
    ], dir);
    await vmalert.waitForOutput(/group "strata" started/, 30_000);

    // Metadata from a Prometheus text body and from remote write.
    expect((await post(`${tsdb.base}/api/v1/import/prometheus`, TEXT)).status).toBe(204);
    const rw = remotewrite.encodeWriteRequestSnappy([{ labels: [{ name: '__name__', value: 'grafana_rw' }], timestamps: [TMS], values: [1] }], [
      { metric: 'grafana_rw', type: 'histogram', help: 'From remote write.', unit: 'seconds' },
    ]);
    expect((await post(`${tsdb.base}/api/v1/write`, rw, { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' })).status).toBe(204);
    const META = {
      grafana_requests_total: [{ type: 'counter', help: 'Requests served, by code.', unit: '' }],
      grafana_rw: [{ type: 'histogram', help: 'From remote write.', unit: 'seconds' }],
      grafana_temperature_celsius: [{ type: 'gauge', help: 'Temperature.', unit: 'celsius' }],
    };
    expect(await getJson(`${tsdb.base}/api/v1/metadata`)).toEqual({ status: 'success', data: META });
    expect(await getJson(`${tsdb.base}/prometheus/api/v1/metadata`, { metric: 'grafana_rw' })).toEqual({ status: 'success', data: { grafana_rw: META.grafana_rw } });
    expect(await getJson(`${tsdb.base}/api/v1/metadata`, { limit: '1', limit_per_metric: '1' })).toEqual({ status: 'success', data: { grafana_requests_total: META.grafana_requests_total } });

    // buildinfo, exemplars, config.
    const info = readBuildInfo();
    expect(await getJson(`${tsdb.base}/api/v1/status/buildinfo`)).toEqual({
      status: 'success', data: { version: info.version, revision: info.gitSha, branch: '', buildUser: '', buildDate: '', goVersion: expect.stringMatching(/^v\d+\./) },
    });
    expect(await getJson(`${tsdb.base}/api/v1/query_exemplars`, { query: 'grafana_requests_total', start: String(TMS / 1000 - 60), end: String(TMS / 1000) })).toEqual({ status: 'success', data: [] });
    expect(await getJson(`${tsdb.base}/api/v1/status/config`)).toEqual({ status: 'success', data: { yaml: '' } });

    // format_query and parse_query; a bad query is 400 bad_data.
    expect(await getJson(`${tsdb.base}/api/v1/format_query`, { query: 'sum(rate(grafana_requests_total[5m]))by(code)' })).toEqual({ status: 'success', data: 'sum by (code)(rate(grafana_requests_total[5m]))' });
    const tree = await getJson<{ status: string; data: { type: string; expr: { type: string } } }>(`${tsdb.base}/api/v1/parse_query`, { query: 'sum(grafana_rw)' });
    expect(tree).toMatchObject({ status: 'success', data: { type: 'aggregation', expr: { type: 'vectorSelector', name: 'grafana_rw' } } });
    expect(await getJson(`${tsdb.base}/api/v1/format_query`, { query: 'sum(' }, 400)).toMatchObject({ status: 'error', errorType: 'bad_data' });

    // A query Grafana posts shows in top_queries; none is running now.
    const range = await postForm(`${tsdb.base}/api/v1/query_range`, { query: 'grafana_temperature_celsius', start: String(TMS / 1000 - 600), end: String(TMS / 1000), step: '15' });
    expect(range.status, range.text).toBe(200);
    expect(await getJson(`${tsdb.base}/api/v1/status/active_queries`)).toEqual({ status: 'ok', data: [] });
    const top = await getJson<Record<string, unknown>>(`${tsdb.base}/api/v1/status/top_queries`, { topN: '5', maxLifetime: '1h' });
    expect(top).toMatchObject({ topN: '5', maxLifetime: '1h0m0s', 'search.queryStats.lastQueriesCount': 20000, 'search.queryStats.minQueryDuration': '1ms' });
    expect(top).toHaveProperty('topByCount');
    expect(top).toHaveProperty('topByAvgDuration');
    expect(top).toHaveProperty('topBySumDuration');

    // Rules and alerts come from vmalert, which evaluates its rule against tsdb.
    await expect.poll(async () => (await getJson<{ data: { alerts: Array<{ labels: Record<string, string> }> | null } }>(`${tsdb.base}/api/v1/alerts`)).data.alerts?.map((a) => a.labels.alertname), { timeout: 20_000, interval: 250 }).toEqual(["AlwaysFiring"]);
    const groups = await getJson<{ status: string; data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string }> }> } }>(`${tsdb.base}/prometheus/api/v1/rules`, { type: 'alert' });
    expect(groups.status).toBe('success');
    expect(groups.data.groups.map((g) => [g.name, g.rules.map((r) => [r.name, r.health])])).toEqual([['strata', [['AlwaysFiring', 'ok']]]]);
    vmalert.kill('SIGTERM');
    await vmalert.exited;
    // vmalert gone: 502 naming it.
    const down = await get(`${tsdb.base}/api/v1/rules`);
    expect([down.status, JSON.parse(down.text)]).toEqual([502, { status: 'error', errorType: 'unavailable', error: expect.stringContaining(`vmalert at "http://127.0.0.1:${vmalertPort}"`) }]);

    // The metadata survives a restart; without -vmalert.proxyURL rules and alerts are empty lists.
    expect(await tsdb.stop()).toBe(0);
    const again = await startTsdb(join(dir, 'tsdb'));
    expect(await getJson(`${again.base}/api/v1/metadata`)).toEqual({ status: 'success', data: META });
    expect(await getJson(`${again.base}/api/v1/rules`)).toEqual({ status: 'success', data: { groups: [] } });
    expect(await getJson(`${again.base}/api/v1/alerts`)).toEqual({ status: 'success', data: { alerts: [] } });
  });

  it('keep no metadata with -enableMetadata=false', async () => {
    const tsdb = await startTsdb(await makeTempDir('grafana-nometa'), ['-enableMetadata=false']);
    expect((await post(`${tsdb.base}/api/v1/import/prometheus`, TEXT)).status).toBe(204);
    expect(await getJson(`${tsdb.base}/api/v1/metadata`)).toEqual({ status: 'success', data: {} });
  });
});

describe('JSON-lines import and export', () => {
  it('imports the bare +Inf, -Inf and NaN of VictoriaMetrics 1.79 exports and round-trips them, staleness markers as null', async () => {
    const tsdb = await startTsdb(await makeTempDir('grafana-jsonl'));
    const t = [TMS, TMS + 1000, TMS + 2000, TMS + 3000, TMS + 4000, TMS + 5000];
    const line = `{"metric":{"__name__":"vm_export","x":"1"},"values":[+Inf,-Inf,NaN,null,5e-324,-0],"timestamps":[${t.join(',')}]}\n`;
    const r = await post(`${tsdb.base}/api/v1/import`, line, { 'content-type': 'application/json' });
    expect(r.status, r.text).toBe(204);
    const exported = await get(`${tsdb.base}/api/v1/export?${encodeParams({ 'match[]': 'vm_export', start: String(TMS - 1) })}`);
    expect(exported.text).toBe(`{"metric":{"__name__":"vm_export","x":"1"},"values":["Inf","-Inf","NaN",null,5e-324,-0],"timestamps":[${t.join(',')}]}\n`);
    // Exported and imported again (under another name): the same text.
    expect((await post(`${tsdb.base}/api/v1/import`, exported.text.replace('vm_export', 'vm_again'), { 'content-type': 'application/json' })).status).toBe(204);
    const again = await exportSeries(tsdb.base, 'vm_again', { start: String(TMS - 1) });
    expect(again).toHaveLength(1);
    expect((await get(`${tsdb.base}/api/v1/export?${encodeParams({ 'match[]': 'vm_again', start: String(TMS - 1) })}`)).text).toBe(exported.text.replace('vm_export', 'vm_again'));
  });
});

describe('rejected writes', () => {
  it('are logged as warnings naming route, client and reason, at most once per route per interval', async () => {
    const tsdb = await startTsdb(await makeTempDir('grafana-reject'), ['-maxInsertRequestSize=1KiB']);
    for (let i = 0; i < 3; i++) expect((await post(`${tsdb.base}/api/v1/import/prometheus`, 'bad{ 1\n')).status).toBe(400);
    expect((await post(`${tsdb.base}/api/v1/import`, 'x'.repeat(2000))).status).toBe(413);
    const line = await tsdb.proc.waitForOutput(/warn\t\S+\trejected POST \/api\/v1\/import from 127\.0\.0\.1:\d+ with 413: [^\n]*/, 10_000);
    expect(line[0]).toContain('-maxInsertRequestSize');
    const prom = tsdb.proc.output().match(/rejected POST \/api\/v1\/import\/prometheus from 127\.0\.0\.1:\d+ with 400: 1 lines? could not be parsed; first: line 1: [^\n]*/g);
    expect(prom).toHaveLength(1);
  });
});
