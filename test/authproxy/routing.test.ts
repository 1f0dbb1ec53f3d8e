import { request as httpRequest } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, basic, type ProxyUnderTest, startBackend, startProxy } from './harness.ts';

let read: Backend;
let write: Backend;
let fallback: Backend;
let plain: Backend;
let proxy: ProxyUnderTest;
let prefixed: ProxyUnderTest;
const A = basic('alice', 'pw');
const T = basic('tenant', 'pw');
const P = basic('plain', 'pw');

beforeAll(async () => {
  [read, write, fallback, plain] = await Promise.all([startBackend('read'), startBackend('write'), startBackend('fallback'), startBackend('plain')]);
  const yaml = `
users:
- username: alice
  password: pw
  headers: ["X-Scope-OrgID: alice", "X-User: alice"]
  url_map:
  - src_paths: ["/api/v1/query", "/api/v1/query_range", "/api/v1/label/[^/]+/values"]
    url_prefix: "${read.url}/select/0/prometheus/"
    headers: ["X-User: reader"]
  - src_paths: ["/api/v1/write"]
    url_prefix: "${write.url}/insert/0/prometheus"
  default_url: ["${fallback.url}/missing"]
- username: tenant
  password: pw
  url_map:
  - src_paths: ["/api/v1/.*"]
    url_prefix: "${read.url}/select?extra_label=tenant%3Da&extra_filters%5B%5D=%7Benv%3D%22prod%22%7D"
- username: plain
  password: pw
  url_prefix: "${plain.url}"
`;
  proxy = await startProxy(yaml);
  prefixed = await startProxy(yaml, { pathPrefix: '/strata' });
});
afterAll(async () => {
  await Promise.all([proxy.stop(), prefixed.stop()]);
  await Promise.all([read.kill(), write.kill(), fallback.kill(), plain.kill()]);
});

async function call(path: string, auth: string, o: { method?: string; body?: string; headers?: Record<string, string>; base?: string } = {}) {
  const r = await request(`${o.base ?? proxy.base}${path}`, { method: (o.method ?? 'GET') as 'GET', headers: { authorization: auth, ...o.headers }, body: o.body ?? null });
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
}

describe('routing', () => {
  it('routes by url_map, appends the path to the prefix and keeps the query and method', async () => {
    const f = async (path: string, method: string, want: string) => expect((await call(path, A, { method, body: method === 'POST' ? 'xyz' : undefined })).text).toBe(want);
    await f('/api/v1/query?query=up&time=1', 'GET', 'read GET /select/0/prometheus/api/v1/query?query=up&time=1 0');
    await f('/api/v1/label/job/values', 'GET', 'read GET /select/0/prometheus/api/v1/label/job/values 0');
    await f('/api/v1/write', 'POST', 'write POST /insert/0/prometheus/api/v1/write 3');
    await f('/', 'GET', `fallback GET /missing?request_path=%2F 0`);
  });

  it('sends unmatched paths to default_url with the original path and query in request_path', async () => {
    expect((await call('/api/v1/series?match[]=up', A)).text).toBe(`fallback GET /missing?request_path=${encodeURIComponent('/api/v1/series?match[]=up')} 0`);
    // a path that only matches as a prefix is not a match
    expect((await call('/api/v1/query/extra', A)).text).toContain('fallback GET /missing?request_path=%2Fapi%2Fv1%2Fquery%2Fextra');
  });

  it('answers 400 "missing route" when nothing matches and there is no default_url', async () => {
    const r = await call('/admin/tenants?x=1', T);
    expect([r.status, r.text]).toEqual([400, 'missing route for "/admin/tenants?x=1"']);
  });

  it('cleans paths before matching, so dot segments and encoded slashes cannot escape a route', async () => {
    const f = async (path: string, wantStatus: number, want: string) => {
      const r = await call(path, T);
      expect(r.status, `${path}: ${r.text}`).toBe(wantStatus);
      expect(r.text).toContain(want);
    };
    const seen = read.seen.length;
    await f('/api/v1/../../admin', 400, 'missing route');
    await f('/api/v1/%2e%2e/%2E%2E/admin', 400, 'missing route');
    await f('/api/v1/..%2f..%2fadmin', 400, 'missing route');
    await f('//api/v1//query', 200, 'read GET /select/api/v1/query?extra_label=');
    await f('/api%2fv1%2fquery', 200, 'read GET /select/api/v1/query?extra_label=');
    await f('/api/v1/query/./x/..', 200, 'read GET /select/api/v1/query/?extra_label=');
    await f('/api/v1/%zz', 400, 'not a valid url');
    expect(read.seen.length).toBe(seen + 3);
  });

  it('never lets client query args override the url_prefix args', async () => {
    const seen = read.seen.length;
    await call('/api/v1/query?query=up&extra_label=tenant%3Db&extra%5Flabel=tenant%3Dc&extra_filters%5B%5D=%7B%7D&extra_filters[]=x', T);
    const url = new URL(read.seen[seen]!.url, 'http://x');
    expect(url.searchParams.getAll('extra_label')).toEqual(['tenant=a']);
    expect(url.searchParams.getAll('extra_filters[]')).toEqual(['{env="prod"}']);
    expect(url.searchParams.get('query')).toBe('up');
  });

  it('strips -http.pathPrefix before routing', async () => {
    expect((await call('/strata/api/v1/query?query=1', A, { base: prefixed.base })).text).toBe('read GET /select/0/prometheus/api/v1/query?query=1 0');
    expect((await call('/api/v1/query', A, { base: prefixed.base })).status).toBe(404);
  });
});

describe('forwarded headers', () => {
  it('drops hop-by-hop headers, appends X-Forwarded-For, sets Host to the backend, forwards Authorization, adds configured headers', async () => {
    const seen = read.seen.length;
    // node:http, because undici refuses to send hop-by-hop headers itself
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${proxy.base}/api/v1/query`, { headers: {
        authorization: A, 'x-forwarded-for': '203.0.113.7', 'x-scope-orgid': 'evil', 'keep-alive': 'timeout=5',
        connection: 'keep-alive, x-drop-me', 'x-drop-me': '1', te: 'trailers', 'x-keep': 'yes',
      } }, (res) => res.resume().on('end', resolve));
      req.on('error', reject).end();
    });
    const h = read.seen[seen]!.headers;
    expect(h['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
    expect(h.host).toBe(`127.0.0.1:${read.port}`);
    expect(h.authorization).toBe(A);
    expect(h['x-scope-orgid']).toBe('alice');
    expect(h['x-user']).toBe('reader');
    expect(h['x-keep']).toBe('yes');
    for (const k of ['keep-alive', 'x-drop-me', 'te']) expect(h[k], k).toBeUndefined();
  });

  it('passes the backend status, headers and body back, minus hop-by-hop headers', async () => {
    const r = await call('/anything?q=1', P);
    expect(r.status).toBe(200);
    expect(r.headers['x-backend']).toBe('plain');
    expect(r.text).toBe('plain GET /anything?q=1 0');
    const head = await call('/x', P, { method: 'HEAD' });
    expect([head.status, head.text]).toEqual([200, '']);
  });

  it('answers Expect: 100-continue itself and forwards the body without the Expect header', async () => {
    const seen = plain.seen.length;
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${proxy.base}/upload`, { method: 'POST', headers: { authorization: P, expect: '100-continue', 'content-length': '5' } }, (res) => {
        let out = '';
        res.on('data', (d: Buffer) => (out += d.toString())).on('end', () => resolve(out));
      });
      req.on('continue', () => req.end('hello')).on('error', reject);
    });
    expect(text).toBe('plain POST /upload 5');
    expect(plain.seen[seen]!.headers.expect).toBeUndefined();
  });

  it('does not proxy /-/reload, /metrics or /health: the proxy serves them', async () => {
    const seen = plain.seen.length;
    expect((await call('/health', P)).text).toBe('OK');
    expect((await call('/metrics', P)).text).toContain('authproxy_user_requests_total{username="plain"}');
    expect(plain.seen.length).toBe(seen);
  });
});
