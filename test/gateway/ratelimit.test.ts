// Rate limiting from outside (-enable.rateLimit, -clusterMode): limits from a file or URL, usage
// from a datasource, 429s with Retry-After, reloads that keep the old config when the new one is
// bad, and a datasource that is down never blocking traffic.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call, type Reply } from '../tsdb/client.ts';
import { killAll, makeTempDir, removeTempDirs } from '../tsdb/harness.ts';
import { bearer, type Gateway, metricValue, startGateway, startUpstream, type Upstream, writeKeyFile } from './harness.ts';

const key = testKey('ES256');
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

/** usage is what the fake datasource answers: metric name → tenant "acc:proj" → value. */
type Usage = Record<string, Record<string, number>>;

async function fakeDatasource(usage: { current: Usage; failing?: boolean }): Promise<Upstream> {
  return startUpstream((s, res) => {
    if (usage.failing === true) return void res.writeHead(500).end('datasource broken');
    const q = s.args.get('query') ?? '';
    const name = /(tsdb_tenant_\w+)/.exec(q)?.[1] ?? '';
    const window = /\[(1m|1h)\]/.exec(q)?.[1] ?? '';
    const values = usage.current[`${name}${window === '' ? '' : `[${window}]`}`] ?? {};
    const result = Object.entries(values).map(([t, v]) => ({ metric: { accountID: t.split(':')[0], projectID: t.split(':')[1] }, value: [Date.now() / 1000, String(v)] }));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
  });
}

async function setup(config: string, usage: { current: Usage; failing?: boolean }, extraArgs: string[] = []) {
  const dir = await makeTempDir('gw-rl');
  const configPath = join(dir, 'limits.yaml');
  await writeFile(configPath, config);
  const [up, ds] = await Promise.all([startUpstream(), fakeDatasource(usage)]);
  const gw = await startGateway([
    '-enable.auth', '-clusterMode', '-enable.rateLimit', `-read.url=${up.url}`, `-write.url=${up.url}`, `-auth.publicKeyFiles=${await writeKeyFile(dir, 'k.pem', key.pem)}`,
    `-ratelimit.config=${configPath}`, `-datasource.url=${ds.url}/select/0/prometheus`, '-ratelimit.refreshInterval=200ms', ...extraArgs,
  ]);
  closers.push(() => up.close(), () => ds.close(), () => gw.stop());
  const token = (acc: number) => signToken(key, { access: { tenant_id: { account_id: acc } } });
  return { gw, up, ds, configPath, token };
}

const read = (gw: Gateway, token: string): Promise<Reply> => call('GET', `${gw.base}/api/v1/query?query=up`, undefined, bearer(token));
const write = (gw: Gateway, token: string): Promise<Reply> => call('POST', `${gw.base}/api/v1/import/prometheus`, 'm 1\n', bearer(token));

const CONFIG = `limits:
  - {type: rows_inserted, value: 100}
  - {type: rows_inserted, value: 1000, account_id: 1}
  - {type: queries, value: 50, resolution: minute}
  - {type: new_series, value: 10, resolution: hour, account_id: 3}
`;

describe('rate limiting', () => {
  it('gates writes by ingestion limits and reads by query limits, tenant entries over global ones', async () => {
    const usage: { current: Usage } = { current: {
      'tsdb_tenant_inserted_rows_total[1m]': { '1:0': 500, '2:0': 150 },
      'tsdb_tenant_select_requests_total[1m]': { '2:0': 60 },
      'tsdb_tenant_timeseries_created_total[1h]': { '3:0': 10 },
    } };
    const { gw, ds, token } = await setup(CONFIG, usage, ['-ratelimit.extraLabels=cluster=test']);
    const [t1, t2, t3, t4] = await Promise.all([1, 2, 3, 4].map(token));
    await expect.poll(async () => (await write(gw, t2!)).status, { timeout: 10_000 }).toBe(429);
    const w2 = await write(gw, t2!);
    expect([w2.status, w2.headers.get('retry-after'), w2.text]).toEqual([429, '60', 'request was rate limited by: "rows_inserted limit reached"']);
    const r2 = await read(gw, t2!);
    expect([r2.status, r2.text]).toEqual([429, 'request was rate limited by: "queries limit reached"']);
    const w3 = await write(gw, t3!);
    expect([w3.status, w3.headers.get('retry-after'), w3.text]).toEqual([429, '3600', 'request was rate limited by: "new_series limit reached"']);
    expect((await read(gw, t3!)).status).toBe(200);
    expect((await write(gw, t1!)).status).toBe(200);
    expect((await read(gw, t1!)).status).toBe(200);
    expect((await write(gw, t4!)).status).toBe(200);
    expect(await metricValue(gw.base, 'gateway_ratelimit_rejects_total{type="rows_inserted",resolution="minute"}')).toBeGreaterThanOrEqual(2);
    expect(await metricValue(gw.base, 'gateway_ratelimit_usage{accountID="1",projectID="0",type="rows_inserted",resolution="minute"}')).toBe(500);
    expect(await metricValue(gw.base, 'gateway_ratelimit_limit{accountID="",projectID="",type="queries",resolution="minute"}')).toBe(50);
    // the datasource got the usage queries of DECISIONS.md, with the extra labels and vmalert's params
    const exprs = new Set(ds.seen.map((s) => s.args.get('query')));
    expect(exprs).toEqual(new Set([
      'sum(increase(tsdb_tenant_inserted_rows_total{cluster="test"}[1m])) by (accountID,projectID)',
      'sum(increase(tsdb_tenant_select_requests_total{cluster="test"}[1m])) by (accountID,projectID)',
      'sum(increase(tsdb_tenant_timeseries_created_total{cluster="test"}[1h])) by (accountID,projectID)',
    ]));
    expect(ds.seen[0]!.path).toBe('/select/0/prometheus/api/v1/query');
    expect(ds.seen[0]!.args.get('step')).toBe('300s');
    expect(Number(ds.seen[0]!.args.get('time'))).toBeGreaterThan(Date.now() / 1000 - 60);
    // usage falls: the tenant may write again
    usage.current = {};
    await expect.poll(async () => (await write(gw, t2!)).status, { timeout: 10_000 }).toBe(200);
  });

  it('keeps the last usage while the datasource fails, and never blocks when it never answered', async () => {
    const usage: { current: Usage; failing?: boolean } = { current: { 'tsdb_tenant_inserted_rows_total[1m]': { '2:0': 150 } } };
    const { gw, token } = await setup(CONFIG, usage);
    const t2 = await token(2);
    await expect.poll(async () => (await write(gw, t2)).status, { timeout: 10_000 }).toBe(429);
    usage.failing = true;
    await expect.poll(() => metricValue(gw.base, 'gateway_ratelimit_datasource_errors_total'), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect((await write(gw, t2)).status).toBe(429);
    expect(gw.proc.output()).toMatch(/cannot measure rate limit usage with .*; keeping the last known usage/);
    // a gateway whose datasource is down from the start forwards everything
    const down = await startUpstream();
    await down.close();
    const dir = await makeTempDir('gw-rl-down');
    const cfg = join(dir, 'l.yaml');
    await writeFile(cfg, CONFIG);
    const g2 = await startGateway(['-enable.auth', '-clusterMode', '-enable.rateLimit', `-read.url=${gw.base}`, `-write.url=http://127.0.0.1:1`, `-ratelimit.config=${cfg}`,
      `-datasource.url=${down.url}`, '-ratelimit.refreshInterval=100ms']);
    closers.push(() => g2.stop());
    await expect.poll(() => metricValue(g2.base, 'gateway_ratelimit_datasource_errors_total'), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect((await write(g2, t2)).status).toBe(502); // forwarded (to a closed port), not limited
  });

  it('reloads the config on SIGHUP and on -ratelimit.configCheckInterval, keeping the old one when the new one is bad', async () => {
    const usage: { current: Usage } = { current: { 'tsdb_tenant_inserted_rows_total[1m]': { '2:0': 150 } } };
    const { gw, token, configPath } = await setup(CONFIG, usage);
    const t2 = await token(2);
    await expect.poll(async () => (await write(gw, t2)).status, { timeout: 10_000 }).toBe(429);
    await writeFile(configPath, 'limits: [{type: rows_inserted, value: 1000}]\n');
    gw.reload();
    await expect.poll(async () => (await write(gw, t2)).status, { timeout: 10_000 }).toBe(200);
    await writeFile(configPath, 'limits: [{type: rows_inserted, value: -5}]\n');
    gw.reload();
    await expect.poll(() => metricValue(gw.base, 'gateway_ratelimit_config_last_reload_successful'), { timeout: 10_000 }).toBe(0);
    expect(gw.proc.output()).toMatch(/invalid rate limit config .*keeping the previous config/);
    expect((await write(gw, t2)).status).toBe(200);
    await writeFile(configPath, 'limits: [{type: rows_inserted, value: 100}]\n');
    gw.reload();
    await expect.poll(async () => (await write(gw, t2)).status, { timeout: 10_000 }).toBe(429);
  });

  it('reads the config from a URL and re-reads it every -ratelimit.configCheckInterval', async () => {
    let served = 'limits: [{type: queries, value: 0, account_id: 7}]\n';
    const cfg = await startUpstream((_s, res) => void res.end(served));
    closers.push(() => cfg.close());
    const { gw, token } = await setup('', { current: {} }, [`-ratelimit.config=${cfg.url}/limits.yaml`, '-ratelimit.configCheckInterval=300ms']);
    const t7 = await token(7);
    expect((await read(gw, t7)).status).toBe(429);
    served = 'limits: []\n';
    await expect.poll(async () => (await read(gw, t7)).status, { timeout: 10_000 }).toBe(200);
  });

  it('refuses to start without cluster mode, a config or a datasource', async () => {
    const f = async (args: string[], re: RegExp) => {
      await expect(startGateway(['-read.url=http://127.0.0.1:1', '-enable.rateLimit', ...args])).rejects.toThrow(re);
    };
    await f(['-ratelimit.config=x', '-datasource.url=http://d'], /-enable.rateLimit needs -clusterMode/);
    await f(['-clusterMode', '-datasource.url=http://d'], /needs -ratelimit.config/);
    await f(['-clusterMode', '-ratelimit.config=x'], /needs -datasource.url/);
    await f(['-clusterMode', '-ratelimit.config=/nonexistent.yaml', '-datasource.url=http://d'], /cannot read rate limit config "\/nonexistent.yaml"/);
  });
});
