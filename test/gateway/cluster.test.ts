// The gateway in front of the real cluster binaries (2 × tsdb-storage, tsdb-insert, tsdb-select):
// two tenants write and read only their own data through every read API; read tokens cannot write
// and write tokens cannot read; claim filters cannot be widened by client args in any position or
// spelling; and vmagent scrapes the cluster into the cluster itself (tenant 0), which the gateway
// reads as its datasource, so a rows_inserted per-minute limit turns writes into 429 while reads go on.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { type Server, startInsert, startSelect, startStorage, type StorageNode } from '../cluster/harness.ts';
import { call, encodeParams, type Reply } from '../tsdb/client.ts';
import { clearOfDayEnd, killAll, makeTempDir, removeTempDirs, requireBinary, startBinary } from '../tsdb/harness.ts';
import { freePort } from '../tsdb/interop.ts';
import { bearer, type Gateway, metricValue, startGateway, writeKeyFile } from './harness.ts';

await clearOfDayEnd(180_000);
const key = testKey('ES384');
const NOW = Date.now();
let nodes: StorageNode[];
let insert: Server;
let select: Server;
let gw: Gateway;
let agent: ReturnType<typeof startBinary>;
const tok: Record<string, string> = {};

const A = { account_id: 1, project_id: 0 };
const B = { account_id: 2, project_id: 5 };
const LIMITED = { account_id: 3, project_id: 0 };

beforeAll(async () => {
  const vmagent = requireBinary('vmagent', 'victoria-metrics');
  nodes = [await startStorage(), await startStorage()];
  [insert, select] = await Promise.all([startInsert(nodes), startSelect(nodes)]);
  const dir = await makeTempDir('gw-cluster');
  const scrape = join(dir, 'scrape.yml');
  const targets = [insert.base, select.base, ...nodes.map((n) => n.http)].map((u) => `'${new URL(u).host}'`).join(', ');
  await writeFile(scrape, `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: cluster\n    static_configs:\n      - targets: [${targets}]\n`);
  agent = startBinary(vmagent, [
    `-promscrape.config=${scrape}`, `-remoteWrite.url=${insert.base}/insert/0/prometheus/api/v1/write`, `-remoteWrite.tmpDataPath=${join(dir, 'queue')}`,
    '-remoteWrite.flushInterval=200ms', `-httpListenAddr=127.0.0.1:${await freePort()}`,
  ], dir);
  const keys = await makeTempDir('gw-cluster-keys');
  await writeFile(join(keys, 'limits.yaml'), 'limits:\n  - {type: rows_inserted, value: 40, resolution: minute, account_id: 3}\n');
  gw = await startGateway([
    '-enable.auth', '-clusterMode', `-read.url=${select.base}`, `-write.url=${insert.base}`, `-auth.publicKeyFiles=${await writeKeyFile(keys, 'k.pem', key.pem)}`,
    '-enable.rateLimit', `-ratelimit.config=${join(keys, 'limits.yaml')}`, `-datasource.url=${select.base}/select/0/prometheus`, '-ratelimit.refreshInterval=500ms',
    '-ratelimit.extraLabels=job=cluster',
  ]);
  const t = (tenant: object, access: object = {}) => signToken(key, { access: { tenant_id: tenant, ...access } });
  Object.assign(tok, {
    writeA: await t(A, { mode: 2 }), readA: await t(A, { mode: 1 }), writeB: await t(B, { mode: 2 }), readB: await t(B, { mode: 1 }),
    readAProd: await t(A, { mode: 1, extra_filters: ['{env="prod"}'] }), fullLimited: await t(LIMITED),
  });
  const lines = (team: string, v: number) => [`gwc_req_total{team="${team}",env="prod"} ${v} ${NOW - 60_000}`, `gwc_req_total{team="${team}",env="dev"} ${v + 1} ${NOW - 60_000}`].join('\n');
  expect((await send('POST', '/api/v1/import/prometheus', tok.writeA!, lines('a', 10))).status).toBe(204);
  expect((await send('POST', '/influx/write', tok.writeB!, `gwc_influx,team=b value=7 ${(NOW - 60_000) * 1e6}`)).status).toBe(204);
  expect((await send('POST', '/api/v1/import/prometheus', tok.writeB!, lines('b', 20))).status).toBe(204);
}, 180_000);

afterAll(async () => {
  agent?.kill('SIGTERM');
  await gw?.stop();
  await killAll();
  await removeTempDirs();
});

const send = (method: string, path: string, token: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> =>
  call(method, `${gw.base}${path}`, body, { ...bearer(token), ...headers });
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const at = String(NOW / 1000);

interface Vector { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }
const series = (r: Reply) => (JSON.parse(r.text) as Vector).data.result.map((s) => `${s.metric.team ?? '-'}/${s.metric.env ?? '-'}=${s.value[1]}`).sort();

async function query(token: string, q: string, extra = ''): Promise<string[]> {
  const r = await send('GET', `/api/v1/query?${encodeParams({ query: q, time: at })}${extra}`, token);
  expect(r.status, r.text).toBe(200);
  return series(r);
}

describe('the gateway in front of the cluster', () => {
  it('keeps each tenant to its own data through every read API', async () => {
    await expect.poll(() => query(tok.readA!, 'gwc_req_total'), { timeout: 15_000 }).toEqual(['a/dev=11', 'a/prod=10']);
    expect(await query(tok.readB!, 'gwc_req_total')).toEqual(['b/dev=21', 'b/prod=20']);
    expect(await query(tok.readA!, '{__name__=~"gwc_.*"}')).toEqual(['a/dev=11', 'a/prod=10']);
    expect(await query(tok.readB!, 'gwc_influx_value')).toEqual(['b/-=7']);
    const f = async (path: string, params: Record<string, string>, check: (aText: string, bText: string) => void) => {
      const [ra, rb] = await Promise.all([tok.readA!, tok.readB!].map((t) => send('GET', `${path}?${encodeParams(params)}`, t)));
      expect([ra!.status, rb!.status], `${path}: ${ra!.text} ${rb!.text}`).toEqual([200, 200]);
      check(ra!.text, rb!.text);
    };
    const teams = (t: string) => [...new Set([...t.matchAll(/team[":=]+"?([ab])/g)].map((m) => m[1]))].sort();
    const range = { query: 'gwc_req_total', start: String((NOW - 120_000) / 1000), end: at, step: '60' };
    await f('/api/v1/query_range', range, (a, b) => expect([teams(a), teams(b)]).toEqual([['a'], ['b']]));
    await f('/api/v1/series', { 'match[]': '{__name__=~"gwc_.*"}' }, (a, b) => expect([teams(a), teams(b)]).toEqual([['a'], ['b']]));
    await f('/api/v1/series/count', { 'match[]': '{__name__=~"gwc_.*"}' }, (a, b) => expect([a, b].map((t) => (JSON.parse(t) as { data: number[] }).data[0])).toEqual([2, 3]));
    // tenant 0 holds what vmagent scrapes (job, instance, …): none of it shows
    await f('/api/v1/labels', {}, (a, b) => expect([JSON.parse(a).data, JSON.parse(b).data]).toEqual([['__name__', 'env', 'team'], ['__name__', 'env', 'team']]));
    await f('/api/v1/label/team/values', {}, (a, b) => expect([JSON.parse(a).data, JSON.parse(b).data]).toEqual([['a'], ['b']]));
    await f('/api/v1/label/__name__/values', {}, (a, b) => expect([JSON.parse(a).data, JSON.parse(b).data]).toEqual([['gwc_req_total'], ['gwc_influx_value', 'gwc_req_total']]));
    await f('/api/v1/export', { 'match[]': '{__name__=~"gwc_.*"}' }, (a, b) => expect([teams(a), teams(b)]).toEqual([['a'], ['b']]));
    await f('/api/v1/export/csv', { 'match[]': 'gwc_req_total', format: 'team,__value__' }, (a, b) => expect([a.trim().split('\n').sort(), b.trim().split('\n').sort()]).toEqual([['a,10', 'a,11'], ['b,20', 'b,21']]));
    await f('/federate', { 'match[]': 'gwc_req_total' }, (a, b) => expect([teams(a), teams(b)]).toEqual([['a'], ['b']]));
    await f('/api/v1/status/tsdb', {}, (a, b) => expect([a, b].map((t) => JSON.parse(t).status)).toEqual(['success', 'success']));
    // a tenant that wrote nothing sees nothing
    expect(await query(await signToken(key, { access: { tenant_id: { account_id: 77 } } }), '{__name__=~"gwc_.*"}')).toEqual([]);
  });

  it('keeps read tokens from writing and write tokens from reading', async () => {
    expect((await send('POST', '/api/v1/import/prometheus', tok.readA!, 'gwc_x 1')).status).toBe(403);
    expect((await send('GET', '/api/v1/query?query=gwc_req_total', tok.writeA!)).status).toBe(403);
    expect((await send('GET', '/api/v1/export?match[]=gwc_req_total', tok.writeB!)).status).toBe(403);
    expect(await query(tok.readA!, 'gwc_x')).toEqual([]);
  });

  it('does not let client args widen the claim filters, in any position or spelling', async () => {
    expect(await query(tok.readAProd!, 'gwc_req_total')).toEqual(['a/prod=10']);
    for (const w of ['&extra_filters[]={env="dev"}', '&extra_filters%5B%5D={env="dev"}', '&extra_filters={env=~".*"}', '&%65xtra_filters%5b%5d={env="dev"}']) {
      expect(await query(tok.readAProd!, 'gwc_req_total', w), w).toEqual(['a/prod=10']);
    }
    const body = `query=gwc_req_total&time=${at}&extra_filters%5B%5D=${encodeURIComponent('{env="dev"}')}&extra_filters=${encodeURIComponent('{team="b"}')}`;
    expect(series(await send('POST', '/api/v1/query', tok.readAProd!, body, FORM))).toEqual(['a/prod=10']);
    // another tenant's path cannot be reached however it is spelled
    for (const p of ['/select/2:5/prometheus/api/v1/query?query=gwc_req_total', '/api/v1/../../select/2:5/prometheus/api/v1/query?query=gwc_req_total', '/%73elect/2:5/prometheus/api/v1/query']) {
      expect([400, 404]).toContain((await send('GET', p, tok.readA!)).status);
    }
  });

  it('turns a tenant\'s writes into 429 at its rows_inserted limit, measured through vmagent, while its reads go on', { timeout: 120_000 }, async () => {
    await agent.waitForOutput(/static_configs: added targets: 4/, 30_000);
    const batch = Array.from({ length: 10 }, (_, i) => `gwc_rows{i="${i}"} 1`).join('\n');
    const deadline = Date.now() + 90_000;
    let status = 204;
    while (status === 204 && Date.now() < deadline) {
      status = (await send('POST', '/api/v1/import/prometheus', tok.fullLimited!, batch)).status;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(429);
    const r = await send('POST', '/api/v1/import/prometheus', tok.fullLimited!, batch);
    expect([r.status, r.headers.get('retry-after'), r.text]).toEqual([429, '60', 'request was rate limited by: "rows_inserted limit reached"']);
    expect((await send('GET', '/api/v1/query?query=gwc_rows', tok.fullLimited!)).status).toBe(200);
    expect((await send('POST', '/api/v1/import/prometheus', tok.writeA!, 'gwc_after 1')).status).toBe(204);
    expect(await metricValue(gw.base, 'gateway_ratelimit_usage{accountID="3",projectID="0",type="rows_inserted",resolution="minute"}')).toBeGreaterThanOrEqual(40);
  });
});
