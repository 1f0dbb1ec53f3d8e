// The cluster's HTTP APIs in one process: ingestion routes (/insert/<tenant>/…) through the shard
// router, read routes (/select/<tenant>/…, /delete/<tenant>/…, /admin/tenants) through the fan-out,
// over two real storage engines behind fault switches. Tenants never see each other's series on
// any read API; answers say isPartial exactly when replication cannot cover a missing node.

import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerClusterInsertRoutes } from '../../src/app/insert/cluster/routes.ts';
import { type FanoutStorage } from '../../src/app/select/cluster/fanout.ts';
import { CLUSTER_PATHS, clusterScope, registerTenantsRoute } from '../../src/app/select/cluster/routes.ts';
import { ConcurrencyLimiter, registerSelectRoutes, RollupResultCache, type SelectLimits } from '../../src/app/select/index.ts';
import { testInsertOptions } from '../../src/app/insert/insert.test-helpers.ts';
import { DOWN, FROZEN } from '../../src/lib/cluster/testing/faulty-node.ts';
import { createLogger } from '../../src/lib/logger/index.ts';
import { native } from '../../src/lib/protoparser/index.ts';
import { DEFAULT_TENANT, type Inserter } from '../../src/lib/storageapi/index.ts';
import { clearOfDayEnd } from '../tsdb/harness.ts';
import { type InProcessNodes, openNodes } from './inprocess-nodes.ts';

const MIN = 60_000;
const LIMITS: SelectLimits = {
  lookbackDeltaMs: 5 * MIN, closedWindows: false, defaultSubqueryStepMs: MIN, maxPointsPerTimeseries: 30_000,
  maxUniqueTimeseries: 300_000, maxSamplesPerQuery: 0, maxSeries: 30_000, maxExportSeries: 1_000_000,
  maxConcurrentRequests: 8, maxQueueDurationMs: 10_000, maxQueryDurationMs: 30_000, maxExportDurationMs: 3_600_000, disableCache: false,
  cacheTimestampOffsetMs: 5 * MIN,
};
const { logger } = createLogger({ format: 'default', level: 'FATAL', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {} });

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function insertApp(inserter: Inserter): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(async (scope) => registerClusterInsertRoutes(scope, { ...testInsertOptions(inserter), now: Date.now }));
  closers.push(() => app.close());
  return app;
}

async function selectApp(fanout: FanoutStorage): Promise<FastifyInstance> {
  const app = Fastify();
  const deps = {
    storage: fanout.forRequest(), tenant: DEFAULT_TENANT, limits: LIMITS, limiter: new ConcurrencyLimiter(8), cache: new RollupResultCache(1 << 20),
    logger, now: Date.now, scope: clusterScope(fanout),
  };
  await app.register(async (scope) => {
    await registerSelectRoutes(scope, deps, CLUSTER_PATHS);
    registerTenantsRoute(scope, deps, fanout);
  });
  closers.push(() => app.close());
  return app;
}

async function cluster(writeRf: number): Promise<{ c: InProcessNodes; ins: FastifyInstance }> {
  const c = await openNodes(2);
  closers.push(() => c.close());
  return { c, ins: await insertApp(c.router(writeRf)) };
}

// Index routes answer for today (UTC) by default: keep midnight out of the test's way.
await clearOfDayEnd(60_000);
// The data sits up to two minutes back (within the lookback of an instant query at now), and today.
const NOW = Date.now();
const T = Math.min(NOW - 1, Math.max(NOW - 2 * MIN, Math.floor(NOW / 86_400_000) * 86_400_000));

async function writeTwoTenants(ins: FastifyInstance): Promise<void> {
  const post = async (tenant: string, body: string) => {
    const res = await ins.inject({ method: 'POST', url: `/insert/${tenant}/prometheus/api/v1/import/prometheus`, payload: body });
    expect(res.statusCode, res.body).toBe(204);
  };
  await post('1', `cpu{team="a",host="h1"} 1 ${T}\nsecret_a{team="a"} 1 ${T}\nsrv.a.cpu 1 ${T}\n`);
  await post('2:5', `cpu{team="b",host="h2"} 2 ${T}\nsecret_b{team="b"} 2 ${T}\nsrv.b.cpu 2 ${T}\n`);
}

describe('cluster read API', () => {
  it('keeps tenants apart on every read API', async () => {
    const { c, ins } = await cluster(1);
    await writeTwoTenants(ins);
    // Factor 1: the six series are split between the two nodes.
    expect(c.storages.map((s) => s.stats().tenants.reduce((n, t) => n + t.activeSeries, 0)).every((n) => n > 0)).toBe(true);
    const sel = await selectApp(c.fanout(1));
    const get = async (path: string, params: Record<string, string> = {}) => {
      const res = await sel.inject({ method: 'GET', url: `${path}?${new URLSearchParams(params)}` });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
      return res;
    };
    for (const [tenant, own, other] of [['1', 'a', 'b'], ['2:5', 'b', 'a']] as const) {
      const p = `/select/${tenant}/prometheus`;
      const json = async (path: string, params: Record<string, string> = {}) => {
        const body = (await get(`${p}${path}`, params)).json();
        expect(body.status).toBe('success');
        expect(body.isPartial).toBe(false);
        expect(JSON.stringify(body)).not.toContain(`secret_${other}`);
        return body.data;
      };
      const names = (await json('/api/v1/query', { query: '{__name__=~".+"}' })).result.map((r: { metric: { __name__: string } }) => r.metric.__name__).sort();
      expect(names).toEqual(['cpu', `secret_${own}`, `srv.${own}.cpu`]);
      const range = await json('/api/v1/query_range', { query: 'cpu', start: String((T - MIN) / 1000), end: String((T + MIN) / 1000), step: '60' });
      expect(range.result.map((r: { metric: { team: string } }) => r.metric.team)).toEqual([own]);
      expect((await json('/api/v1/series', { 'match[]': '{__name__=~".+"}' })).map((s: { __name__: string }) => s.__name__).sort()).toEqual(names);
      expect(await json('/api/v1/labels')).toEqual(['__name__', 'host', 'team']);
      expect(await json('/api/v1/label/team/values')).toEqual([own]);
      expect(await json('/api/v1/label/__name__/values')).toEqual(names);
      expect(await json('/api/v1/series/count')).toEqual([3]);
      expect((await json('/api/v1/status/tsdb')).seriesCountByMetricName.map((e: { name: string }) => e.name).sort()).toEqual(names);
      const exported = (await get(`${p}/api/v1/export`, { 'match[]': '{__name__=~".+"}' })).body.trim().split('\n').map((l) => JSON.parse(l).metric.__name__).sort();
      expect(exported).toEqual(names);
      expect((await get(`${p}/api/v1/export/csv`, { 'match[]': '{__name__=~".+"}', format: '__name__,__value__' })).body.trim().split('\n').sort())
        .toEqual(names.map((n: string) => `${n},${own === 'a' ? 1 : 2}`));
      const nat = native.parse((await get(`${p}/api/v1/export/native`, { 'match[]': '{__name__=~".+"}' })).rawPayload);
      expect(nat.map((s) => s.labels.find((l) => l.name === '__name__')!.value).sort()).toEqual(names);
      const fed = (await get(`${p}/federate`, { 'match[]': '{__name__=~".+"}' })).body;
      expect(fed).toContain(`secret_${own}`);
      expect(fed).not.toContain(`secret_${other}`);
      const find = (await get(`/select/${tenant}/graphite/metrics/find`, { query: 'srv.*' })).json();
      expect(find.map((n: { id: string }) => n.id)).toEqual([`srv.${own}`]);
    }
    const tenants = (await get('/admin/tenants')).json();
    expect(tenants).toEqual({ status: 'success', isPartial: false, data: ['1:0', '2:5'] });
    // Deletion under /delete/<tenant>/ touches that tenant only.
    const del = await sel.inject({ method: 'POST', url: '/delete/1/prometheus/api/v1/admin/tsdb/delete_series?match[]=cpu' });
    expect(del.statusCode, del.body).toBe(204);
    expect((await get('/select/1/prometheus/api/v1/label/__name__/values')).json().data).toEqual(['secret_a', 'srv.a.cpu']);
    expect((await get('/select/2:5/prometheus/api/v1/label/__name__/values')).json().data).toEqual(['cpu', 'secret_b', 'srv.b.cpu']);
  });

  it('answers 400 for a bad tenant and serves the cache reset at /select/internal/', async () => {
    const { c } = await cluster(1);
    const sel = await selectApp(c.fanout(1));
    const bad = await sel.inject({ method: 'GET', url: '/select/x1/prometheus/api/v1/query?query=1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 'error', errorType: 'bad_data', error: expect.stringContaining('invalid tenant "x1"') });
    const badDelete = await sel.inject({ method: 'POST', url: '/delete/1:2:3/prometheus/api/v1/admin/tsdb/delete_series?match[]=cpu' });
    expect(badDelete.statusCode).toBe(400);
    expect(badDelete.body).toContain('invalid tenant "1:2:3"');
    expect((await sel.inject({ method: 'HEAD', url: '/select/internal/resetRollupResultCache' })).statusCode).toBe(200);
  });

  it('answers complete with a node down when replication covers it, partial or 503 when it does not', async () => {
    const { c, ins } = await cluster(2);
    await writeTwoTenants(ins);
    c.nodes[1]!.setMode(DOWN);
    const q = (app: FastifyInstance) => app.inject({ method: 'GET', url: '/select/1/prometheus/api/v1/query?query=cpu' });
    const replicated = await q(await selectApp(c.fanout(2)));
    expect(replicated.json()).toMatchObject({ status: 'success', isPartial: false, data: { result: [{ metric: { team: 'a' } }] } });
    const unreplicated = await q(await selectApp(c.fanout(1)));
    expect(unreplicated.json()).toMatchObject({ status: 'success', isPartial: true, data: { result: [{ metric: { team: 'a' } }] } });
    const denied = await q(await selectApp(c.fanout(1, { deny: true })));
    expect(denied.statusCode).toBe(503);
    expect(denied.json()).toMatchObject({ status: 'error', errorType: 'unavailable', error: expect.stringContaining('storage node s1:8400 did not answer') });
    // The index routes carry the flag too.
    const labels = await (await selectApp(c.fanout(1))).inject({ method: 'GET', url: '/select/1/prometheus/api/v1/labels' });
    expect(labels.json()).toMatchObject({ status: 'success', isPartial: true });
  });

  it('does not hang a query on a frozen node', async () => {
    const { c, ins } = await cluster(2);
    await writeTwoTenants(ins);
    c.nodes[0]!.setMode(FROZEN);
    const sel = await selectApp(c.fanout(2, { timeoutMs: 300 }));
    const started = performance.now();
    const res = await sel.inject({ method: 'GET', url: '/select/1/prometheus/api/v1/query?query=cpu' });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(res.json()).toMatchObject({ status: 'success', isPartial: false, data: { result: [{ metric: { team: 'a' } }] } });
  });
});
