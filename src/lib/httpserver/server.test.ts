import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { stringFlag, FlagSet } from '../flags/index.ts';
import { startTestServer } from './server.test-helpers.ts';

const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function start(o: Parameters<typeof startTestServer>[0] = {}) {
  const s = await startTestServer(o);
  cleanups.push(s.stop);
  return s;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe('built-in routes', () => {
  it('answers /health with OK, and 503 once the shutdown delay begins', async () => {
    const s = await start();
    expect(await get(`${s.base}/health`)).toMatchObject({ status: 200, body: 'OK' });
    s.server.beginShutdownDelay();
    expect(await get(`${s.base}/health`)).toMatchObject({ status: 503 });
  });

  it('serves /metrics in the text format with request counters', async () => {
    const s = await start();
    await get(`${s.base}/echo`);
    const m = await get(`${s.base}/metrics`);
    expect(m.status).toBe(200);
    expect(m.headers['content-type']).toMatch(/^text\/plain/);
    expect(m.body).toContain('test_http_requests_total{path="/echo"} 1');
  });

  it('serves a route under its prefix alias behind -http.pathPrefix, counted under the route\'s path, and nothing else under the alias', async () => {
    const s = await startTestServer({ pathPrefix: '/base' }, (server) => server.register(async (app) => {
      app.get('/api/v1/x/:name', { config: { prefixAliases: ['/prometheus'] } }, async (req) => `x=${(req.params as { name: string }).name} url=${req.url} original=${req.originalUrl}`);
    }));
    cleanups.push(s.stop);
    expect(await get(`${s.base}/base/prometheus/api/v1/x/a?q=1`)).toMatchObject({ status: 200, body: 'x=a url=/base/api/v1/x/a?q=1 original=/base/prometheus/api/v1/x/a?q=1' });
    expect(await get(`${s.base}/base/api/v1/x/b`)).toMatchObject({ status: 200, body: 'x=b url=/base/api/v1/x/b original=/base/api/v1/x/b' });
    expect(await get(`${s.base}/base/prometheus/echo`)).toMatchObject({ status: 404, body: 'unsupported path requested: "/base/prometheus/echo"' });
    expect(await get(`${s.base}/prometheus/api/v1/x/a`)).toMatchObject({ status: 404 });
    const m = await get(`${s.base}/base/metrics`);
    expect(m.body).toContain('test_http_requests_total{path="/base/api/v1/x/:name"} 2');
  });

  it('serves /flags with secrets masked', async () => {
    const flagSet = new FlagSet();
    stringFlag('httpAuth.password', '', 'p', { set: flagSet }).apply('hunter2');
    const s = await start({ flagSet });
    const page = await get(`${s.base}/flags`);
    expect(page.body).toBe('-httpAuth.password="secret"\n');
  });

  it('protects each built-in route with its auth key, which overrides Basic auth', async () => {
    const s = await start({ metricsAuthKey: 'mk', flagsAuthKey: 'fk', pprofAuthKey: 'pk', basicAuth: { username: 'u', password: 'p' } });
    const f = async (path: string, want: number) => expect((await get(`${s.base}${path}`)).status).toBe(want);
    await f('/metrics', 401);
    await f('/metrics?authKey=wrong', 401);
    await f('/metrics?authKey=mk', 200);
    await f('/flags?authKey=mk', 401);
    await f('/flags?authKey=fk', 200);
    await f('/debug/pprof/?authKey=pk', 200);
    await f('/debug/pprof/?authKey=fk', 401);
    expect((await get(`${s.base}/metrics`)).body).toContain('-metricsAuthKey');
  });

  it('captures a CPU profile in .cpuprofile format and rejects bad durations', async () => {
    const s = await start();
    const p = await get(`${s.base}/debug/pprof/profile?seconds=1`);
    expect(p.status).toBe(200);
    const profile = JSON.parse(p.body) as { nodes: unknown[]; startTime: number; endTime: number };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.endTime - profile.startTime).toBeGreaterThanOrEqual(900_000);
    expect((await get(`${s.base}/debug/pprof/profile?seconds=abc`)).status).toBe(400);
    expect((await get(`${s.base}/debug/pprof/profile?seconds=0`)).status).toBe(400);
  });

  it('streams a heap snapshot', async () => {
    const s = await start({ disableResponseCompression: true });
    const res = await request(`${s.base}/debug/pprof/heap`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toContain('heap.heapsnapshot');
    const text = await res.body.text();
    expect(JSON.parse(text)).toHaveProperty('snapshot.meta');
  }, 60_000);
});

describe('Basic auth', () => {
  it('protects app routes, keeps /health public and compares credentials exactly', async () => {
    const s = await start({ basicAuth: { username: 'u', password: 'p' } });
    const f = async (path: string, auth: string | undefined, want: number) =>
      expect((await get(`${s.base}${path}`, auth === undefined ? {} : { authorization: auth })).status).toBe(want);
    await f('/echo', undefined, 401);
    await f('/echo', basic('u:x'), 401);
    await f('/echo', basic('u:p'), 200);
    await f('/echo', 'Basic %%%', 401);
    await f('/metrics', undefined, 401);
    await f('/metrics', basic('u:p'), 200);
    await f('/health', undefined, 200);
    const res = await get(`${s.base}/echo`);
    expect(res.headers['www-authenticate']).toBe('Basic realm="Restricted"');
  });

  it('counts answered requests, rejected credentials and error statuses by route', async () => {
    const s = await start({ basicAuth: { username: 'u', password: 'p' } });
    const auth = { authorization: basic('u:p') };
    const count = async (series: string) => {
      const m = (await get(`${s.base}/metrics`, auth)).body.split('\n').find((l) => l.startsWith(`${series} `));
      return m === undefined ? 0 : Number(m.slice(series.length + 1));
    };
    const names = ['test_http_requests_total{path="/echo"}', 'test_http_auth_errors_total{path="/echo"}', 'test_http_request_errors_total{path="/echo",code="401"}'];
    const before = await Promise.all(names.map(count));
    expect((await get(`${s.base}/echo`)).status).toBe(401);
    expect((await get(`${s.base}/echo`, { authorization: basic('u:x') })).status).toBe(401);
    expect((await get(`${s.base}/echo`, auth)).status).toBe(200);
    const after = await Promise.all(names.map(count));
    expect(after.map((n, i) => n - before[i]!)).toEqual([3, 2, 2]);
  });
});

describe('path prefix', () => {
  it('serves every route under -http.pathPrefix and nothing outside it', async () => {
    const s = await start({ pathPrefix: '/strata' });
    expect((await get(`${s.base}/strata/health`)).body).toBe('OK');
    expect((await get(`${s.base}/strata/echo`)).body).toContain('url=/strata/echo');
    expect((await get(`${s.base}/health`)).status).toBe(404);
    expect((await get(`${s.base}/echo`)).status).toBe(404);
  });
});

describe('response compression', () => {
  it('compresses by Accept-Encoding unless disabled', async () => {
    const on = await start();
    expect((await get(`${on.base}/big`, { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get(`${on.base}/big`)).headers['content-encoding']).toBeUndefined();
    const off = await start({ disableResponseCompression: true });
    expect((await get(`${off.base}/big`, { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBeUndefined();
  });
});

describe('errors', () => {
  it('answers a throwing handler with 500 and keeps serving', async () => {
    const s = await start();
    const r = await get(`${s.base}/boom`);
    expect(r).toMatchObject({ status: 500, body: 'internal error: kaboom' });
    expect(s.logs.some((l) => l.includes('cannot serve GET /boom'))).toBe(true);
    expect((await get(`${s.base}/nope`)).status).toBe(404);
    expect((await get(`${s.base}/health`)).status).toBe(200);
  });
});
