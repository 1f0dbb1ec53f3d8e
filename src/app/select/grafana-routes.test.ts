// The calls Grafana's Prometheus data source makes besides queries, through the read route table
// (fastify inject), each in the exact response shape Grafana parses: buildinfo, metadata,
// query_exemplars, rules, alerts, status/config, format_query, parse_query, and VictoriaMetrics'
// active_queries and top_queries.

import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { readBuildInfo } from '../../lib/buildinfo/index.ts';
import { PrefixAliases } from '../../lib/httpserver/index.ts';
import { createLogger } from '../../lib/logger/index.ts';
import { MetadataStore } from '../../lib/metadata/index.ts';
import { MemorySearcher } from '../../lib/query/index.ts';
import { DEFAULT_TENANT, type SearchQuery, type SeriesSamples } from '../../lib/storageapi/index.ts';
import { ConcurrencyLimiter } from './concurrency.ts';
import { type SelectDeps } from './deps.ts';
import { type SelectLimits } from './flags.ts';
import { QueryStats } from './query-stats.ts';
import { RollupResultCache } from './rollup-cache.ts';
import { registerSelectRoutes } from './routes.ts';
import { VmalertProxy } from './vmalert.ts';

const NOW = 1_700_000_000_000;
const LIMITS: SelectLimits = {
  lookbackDeltaMs: 300_000, closedWindows: false, defaultSubqueryStepMs: 60_000, maxPointsPerTimeseries: 30_000,
  maxUniqueTimeseries: 300_000, maxSamplesPerQuery: 0, maxSeries: 30_000, maxExportSeries: 1_000_000,
  maxConcurrentRequests: 4, maxQueueDurationMs: 10_000, maxQueryDurationMs: 30_000, maxExportDurationMs: 3_600_000, disableCache: true,
  cacheTimestampOffsetMs: 300_000,
};

/** GatedSearcher holds searches at a gate until it is opened. */
class GatedSearcher extends MemorySearcher {
  gate: Promise<void> | null = null;
  override async *searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    if (this.gate !== null) await this.gate;
    yield* super.searchSeries(q, signal);
  }
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function serve(extra: Partial<SelectDeps> = {}) {
  const db = new GatedSearcher();
  db.add(DEFAULT_TENANT, [{ name: '__name__', value: 'up' }, { name: 'job', value: 'a' }], NOW - 1000, 1);
  const { logger } = createLogger({ format: 'default', level: 'FATAL', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {} });
  // The /prometheus aliases of the routes are served by URL rewriting, as HttpServer does.
  const aliases = new PrefixAliases();
  const app = Fastify({ rewriteUrl: aliases.rewrite });
  app.addHook('onRoute', aliases.onRoute);
  apps.push(app);
  await app.register(async (a) => registerSelectRoutes(a, {
    storage: db, tenant: DEFAULT_TENANT, limits: LIMITS, limiter: new ConcurrencyLimiter(4), cache: new RollupResultCache(1 << 20), logger, now: () => NOW, ...extra,
  }));
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, body: r.json() as Record<string, unknown> };
  };
  return { app, db, get };
}

const badData = (error: RegExp) => ({ status: 'error', errorType: 'bad_data', error: expect.stringMatching(error) });

describe('Grafana data source calls', () => {
  it('/api/v1/status/buildinfo answers Prometheus\' shape with Strata\'s version, also under /prometheus', async () => {
    const { get } = await serve();
    for (const prefix of ['', '/prometheus']) {
      const r = await get(`${prefix}/api/v1/status/buildinfo`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        status: 'success',
        data: { version: readBuildInfo().version, revision: readBuildInfo().gitSha, branch: '', buildUser: '', buildDate: '', goVersion: process.version },
      });
      // Grafana takes a server without `features` for Prometheus (Mimir has them).
      expect(r.body.data).not.toHaveProperty('features');
    }
  });

  it('/api/v1/metadata answers metric, limit and limit_per_metric in Prometheus\' shape', async () => {
    const store = new MetadataStore(1 << 20);
    store.add(DEFAULT_TENANT, { metric: 'up', type: 'gauge', help: 'Whether the target is up.' });
    store.add(DEFAULT_TENANT, { metric: 'http_requests_total', type: 'counter', help: 'Requests.', unit: 'requests' });
    store.add({ accountID: 1, projectID: 0 }, { metric: 'other_tenant', type: 'gauge' });
    const { get } = await serve({ metadata: store });
    const f = async (q: string, want: unknown) => expect((await get(`/api/v1/metadata${q}`)).body).toEqual(want);
    await f('', {
      status: 'success',
      data: {
        http_requests_total: [{ type: 'counter', help: 'Requests.', unit: 'requests' }],
        up: [{ type: 'gauge', help: 'Whether the target is up.', unit: '' }],
      },
    });
    await f('?metric=up', { status: 'success', data: { up: [{ type: 'gauge', help: 'Whether the target is up.', unit: '' }] } });
    await f('?metric=nope', { status: 'success', data: {} });
    await f('?limit=1', { status: 'success', data: { http_requests_total: [{ type: 'counter', help: 'Requests.', unit: 'requests' }] } });
    await f('?limit=-1&limit_per_metric=1', { status: 'success', data: expect.objectContaining({ up: [expect.anything()] }) });
    const bad = await get('/api/v1/metadata?limit=ten');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(badData(/invalid parameter "limit": "ten" is not an integer/));
    // A node without a metadata store knows no metadata.
    expect((await (await serve()).get('/api/v1/metadata')).body).toEqual({ status: 'success', data: {} });
  });

  it('/api/v1/query_exemplars, /api/v1/rules, /api/v1/alerts and /api/v1/status/config answer the empty shapes', async () => {
    const { get } = await serve();
    expect(await get('/api/v1/query_exemplars?query=up&start=1&end=2')).toEqual({ status: 200, body: { status: 'success', data: [] } });
    expect(await get('/api/v1/query_exemplars?query=up{')).toEqual({ status: 400, body: badData(/^cannot parse query: /) });
    expect(await get('/api/v1/query_exemplars')).toEqual({ status: 400, body: badData(/missing "query" arg/) });
    expect(await get('/api/v1/rules')).toEqual({ status: 200, body: { status: 'success', data: { groups: [] } } });
    expect(await get('/api/v1/rules?type=alert')).toEqual({ status: 200, body: { status: 'success', data: { groups: [] } } });
    expect(await get('/api/v1/alerts')).toEqual({ status: 200, body: { status: 'success', data: { alerts: [] } } });
    expect(await get('/api/v1/status/config')).toEqual({ status: 200, body: { status: 'success', data: { yaml: '' } } });
  });

  it('/api/v1/format_query pretty-prints and /api/v1/parse_query gives the syntax tree; a bad query is 400', async () => {
    const { get } = await serve();
    const q = encodeURIComponent('sum(rate(http_requests_total[5m])) by (job)');
    expect(await get(`/api/v1/format_query?query=${q}`)).toEqual({ status: 200, body: { status: 'success', data: 'sum by (job)(rate(http_requests_total[5m]))' } });
    const parsed = await get(`/api/v1/parse_query?query=${q}`);
    expect(parsed.status).toBe(200);
    expect(parsed.body).toMatchObject({ status: 'success', data: { type: 'aggregation', op: 'sum', grouping: ['job'], without: false, param: null, expr: { type: 'call', func: { name: 'rate' } } } });
    for (const path of ['/api/v1/format_query', '/api/v1/parse_query']) {
      expect(await get(`${path}?query=${encodeURIComponent('sum(rate(x[5m])')}`)).toEqual({ status: 400, body: badData(/^cannot parse query: .* at 1:\d+/) });
      expect(await get(path)).toEqual({ status: 400, body: badData(/missing "query" arg/) });
    }
  });

  it('/api/v1/status/active_queries lists running queries and top_queries the finished ones, in VictoriaMetrics\' shapes', async () => {
    let clock = NOW;
    const stats = new QueryStats({ lastQueriesCount: 100, minQueryDurationMs: 0, now: () => clock });
    const { app, db, get } = await serve({ queryStats: stats });
    let open = () => {};
    db.gate = new Promise((r) => (open = r));
    const running = app.inject({ method: 'GET', url: `/api/v1/query_range?query=up&start=${(NOW - 3_600_000) / 1000}&end=${NOW / 1000}&step=60`, remoteAddress: '10.0.0.7' });
    while (stats.active(DEFAULT_TENANT).length === 0) await new Promise((r) => setTimeout(r, 2));
    clock += 1234;
    const active = await get('/api/v1/status/active_queries');
    expect(active).toEqual({
      status: 200,
      body: { status: 'ok', data: [{ duration: '1.234s', id: expect.stringMatching(/^[0-9A-F]{16}$/), remote_addr: expect.stringMatching(/^10\.0\.0\.7(:\d+)?$/), query: 'up', start: NOW - 3_600_000, end: NOW, step: 60_000 }] },
    });
    open();
    expect((await running).statusCode).toBe(200);
    expect((await get('/api/v1/status/active_queries')).body).toEqual({ status: 'ok', data: [] });
    // Two more: an instant query twice.
    for (let i = 0; i < 2; i++) expect((await app.inject({ method: 'GET', url: '/api/v1/query?query=sum(up)' })).statusCode).toBe(200);
    const top = await get('/api/v1/status/top_queries?topN=1');
    expect(top).toEqual({
      status: 200,
      body: {
        topN: '1', maxLifetime: '10m0s', 'search.queryStats.lastQueriesCount': 100, 'search.queryStats.minQueryDuration': '0s',
        topByCount: [{ query: 'sum(up)', timeRangeSeconds: 0, count: 2 }],
        topByAvgDuration: [{ query: 'up', timeRangeSeconds: 3600, avgDurationSeconds: 1.234, count: 1 }],
        topBySumDuration: [{ query: 'up', timeRangeSeconds: 3600, sumDurationSeconds: 1.234, count: 1 }],
      },
    });
    expect((await get('/api/v1/status/top_queries')).body).toMatchObject({ topN: '20', topByCount: [expect.anything(), expect.anything()] });
    clock += 11 * 60_000;
    expect((await get('/api/v1/status/top_queries?maxLifetime=1h')).body).toMatchObject({ maxLifetime: '1h0m0s', topByCount: [expect.anything(), expect.anything()] });
    expect((await get('/api/v1/status/top_queries')).body).toMatchObject({ topByCount: [] });
    expect(await get('/api/v1/status/top_queries?topN=x')).toEqual({ status: 400, body: badData(/invalid parameter "topN"/) });
    expect(await get('/api/v1/status/top_queries?maxLifetime=soon')).toEqual({ status: 400, body: badData(/invalid parameter "maxLifetime"/) });
  });
});

describe('-vmalert.proxyURL', () => {
  async function fakeVmalert() {
    const seen: Array<{ method: string; url: string; body: unknown; forwardedFor: unknown }> = [];
    const app = Fastify();
    apps.push(app);
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    const answer = (req: { method: string; url: string; body?: unknown; headers: Record<string, unknown> }) => {
      seen.push({ method: req.method, url: req.url, body: req.body, forwardedFor: req.headers['x-forwarded-for'] });
    };
    app.route({ method: ['GET', 'POST'], url: '/base/api/v1/rules', handler: async (req) => (answer(req), { status: 'success', data: { groups: [{ name: 'g', rules: [] }] } }) });
    app.route({ method: ['GET', 'POST'], url: '/base/api/v1/alerts', handler: async (req) => (answer(req), { status: 'success', data: { alerts: [{ state: 'firing' }] } }) });
    const addr = await app.listen({ host: '127.0.0.1', port: 0 });
    return { url: `${addr}/base/`, seen };
  }

  it('proxies rules and alerts to the rule evaluator, query string and form body included', async () => {
    const vm = await fakeVmalert();
    const proxy = new VmalertProxy(vm.url, 5_000);
    const { app } = await serve({ vmalert: proxy });
    try {
      const r = await app.inject({ method: 'GET', url: '/prometheus/api/v1/rules?type=alert&rule_name[]=x', remoteAddress: '10.0.0.9' });
      expect([r.statusCode, r.json()]).toEqual([200, { status: 'success', data: { groups: [{ name: 'g', rules: [] }] } }]);
      const a = await app.inject({ method: 'POST', url: '/api/v1/alerts', payload: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect([a.statusCode, a.json()]).toEqual([200, { status: 'success', data: { alerts: [{ state: 'firing' }] } }]);
      expect(vm.seen).toEqual([
        { method: 'GET', url: '/base/api/v1/rules?type=alert&rule_name[]=x', body: undefined, forwardedFor: '10.0.0.9' },
        { method: 'POST', url: '/base/api/v1/alerts', body: 'a=1&b=2', forwardedFor: expect.any(String) },
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('answers 502 naming the evaluator when it cannot be reached', async () => {
    const closed = Fastify();
    const addr = await closed.listen({ host: '127.0.0.1', port: 0 });
    await closed.close();
    const proxy = new VmalertProxy(addr, 5_000);
    const { get } = await serve({ vmalert: proxy });
    try {
      const r = await get('/api/v1/rules');
      expect(r).toEqual({ status: 502, body: { status: 'error', errorType: 'unavailable', error: expect.stringContaining(`cannot proxy the request to vmalert at "${addr}" (-vmalert.proxyURL)`) } });
    } finally {
      await proxy.close();
    }
  });

  it('refuses URLs it cannot use', () => {
    const f = (url: string, why: RegExp) => expect(() => new VmalertProxy(url, 1000)).toThrow(why);
    f('vmalert:8880', /scheme must be http or https/);
    f('not a url', /not a URL/);
    f('http://u:p@vmalert:8880', /no query, fragment or credentials/);
    f('http://vmalert:8880/?x=1', /no query, fragment or credentials/);
  });
});

describe('request bodies', () => {
  it('a JSON body (vmalert posts an empty one with Content-Type: application/json) is ignored, not a 400', async () => {
    const { app } = await serve();
    for (const payload of ['', '{"query":"nope"}', 'not json']) {
      const r = await app.inject({ method: 'POST', url: '/api/v1/query?query=vector(1)', payload, headers: { 'content-type': 'application/json' } });
      expect([r.statusCode, r.json()]).toMatchObject([200, { status: 'success', data: { resultType: 'vector' } }]);
    }
  });
});
