// The whole measuring chain with real processes: a stand-in cluster (recording upstream) exports
// the per-tenant statistics of DECISIONS.md on /metrics, vmagent (Debian package victoria-metrics)
// scrapes them into a real single-node tsdb, and the gateway reads usage from that tsdb: a
// per-minute rows_inserted limit turns one tenant's writes into 429 while its reads go on.
// (test/gateway/cluster.test.ts runs the same against the real cluster binaries.)
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call } from '../tsdb/client.ts';
import { killAll, makeTempDir, removeTempDirs, requireBinary, startBinary, startTsdb } from '../tsdb/harness.ts';
import { freePort, writeScrapeConfig } from '../tsdb/interop.ts';
import { bearer, metricValue, startGateway, startUpstream } from './harness.ts';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await killAll();
  await removeTempDirs();
});

it('a rows_inserted per-minute limit measured through vmagent turns writes into 429 while reads go on', { timeout: 120_000 }, async () => {
  const vmagent = requireBinary('vmagent', 'victoria-metrics');
  const dir = await makeTempDir('gw-vmagent');
  const rows = new Map<string, number>();
  const selects = new Map<string, number>();
  const cluster = await startUpstream((s, res) => {
    const insert = /^\/insert\/(\d+):(\d+)\//.exec(s.path);
    const select = /^\/select\/(\d+):(\d+)\//.exec(s.path);
    if (insert !== null) {
      const t = `${insert[1]}:${insert[2]}`;
      rows.set(t, (rows.get(t) ?? 0) + s.body.split('\n').filter((l) => l.trim() !== '').length);
      return void res.writeHead(204).end();
    }
    if (select !== null) {
      const t = `${select[1]}:${select[2]}`;
      selects.set(t, (selects.get(t) ?? 0) + 1);
      res.setHeader('content-type', 'application/json');
      return void res.end('{"status":"success","data":{"resultType":"vector","result":[]}}');
    }
    if (s.path === '/metrics') {
      const lines = ['# TYPE tsdb_tenant_inserted_rows_total counter'];
      for (const [t, n] of rows) lines.push(`tsdb_tenant_inserted_rows_total{accountID="${t.split(':')[0]}",projectID="${t.split(':')[1]}",type="prometheus"} ${n}`);
      lines.push('# TYPE tsdb_tenant_select_requests_total counter');
      for (const [t, n] of selects) lines.push(`tsdb_tenant_select_requests_total{accountID="${t.split(':')[0]}",projectID="${t.split(':')[1]}"} ${n}`);
      return void res.end(`${lines.join('\n')}\n`);
    }
    res.writeHead(404).end();
  });
  closers.push(() => cluster.close());
  const datasource = await startTsdb(join(dir, 'datasource'));
  const agent = startBinary(vmagent, [
    `-promscrape.config=${await writeScrapeConfig(dir, new URL(cluster.url).host)}`, `-remoteWrite.url=${datasource.base}/api/v1/write`,
    `-remoteWrite.tmpDataPath=${join(dir, 'vmagent-queue')}`, '-remoteWrite.flushInterval=200ms', `-httpListenAddr=127.0.0.1:${await freePort()}`,
  ], dir);
  await agent.waitForOutput(/static_configs: added targets: 1/, 30_000);
  const key = testKey('RS256');
  const keyDir = await makeTempDir('gw-vmagent');
  await writeFile(join(keyDir, 'k.pem'), key.pem);
  await writeFile(join(keyDir, 'limits.yaml'), 'limits:\n  - {type: rows_inserted, value: 30, resolution: minute, account_id: 1}\n');
  const gw = await startGateway([
    '-enable.auth', '-clusterMode', '-enable.rateLimit', `-read.url=${cluster.url}`, `-write.url=${cluster.url}`, `-auth.publicKeyFiles=${join(keyDir, 'k.pem')}`,
    `-ratelimit.config=${join(keyDir, 'limits.yaml')}`, `-datasource.url=${datasource.base}`, '-ratelimit.refreshInterval=500ms', '-ratelimit.extraLabels=team=storage',
  ]);
  closers.push(() => gw.stop());
  const [t1, t2] = await Promise.all([1, 2].map((acc) => signToken(key, { access: { tenant_id: { account_id: acc } } })));
  const batch = Array.from({ length: 10 }, (_, i) => `gw_rows{i="${i}"} 1`).join('\n');
  const write = async (token: string) => (await call('POST', `${gw.base}/api/v1/import/prometheus`, batch, bearer(token))).status;
  const read = async (token: string) => (await call('GET', `${gw.base}/api/v1/query?query=up`, undefined, bearer(token))).status;
  // tenant 1 writes until the datasource shows 30 rows in the last minute
  const deadline = Date.now() + 60_000;
  let status = 204;
  while (status === 204 && Date.now() < deadline) {
    status = await write(t1!);
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(status).toBe(429);
  expect(rows.get('1:0')).toBeGreaterThanOrEqual(30);
  const accepted = rows.get('1:0');
  expect(await write(t1!)).toBe(429);
  expect(rows.get('1:0')).toBe(accepted);
  expect(await read(t1!)).toBe(200);
  expect(await write(t2!)).toBe(204);
  expect(await metricValue(gw.base, 'gateway_ratelimit_usage{accountID="1",projectID="0",type="rows_inserted",resolution="minute"}')).toBeGreaterThanOrEqual(30);
  expect(await metricValue(gw.base, 'gateway_ratelimit_datasource_errors_total')).toBe(0);
  agent.kill('SIGTERM');
  await agent.exited;
});
