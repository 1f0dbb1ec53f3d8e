import { type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { writeMetrics } from '../metrics/index.ts';
import { type HttpServerOptions } from './server.ts';
import { startTestServer } from './server.test-helpers.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

let seq = 0;

const viaFastify = new WeakSet<IncomingMessage>();

/**
 * start serves a raw catch-all answering "raw <method> <url> <raw|fastify>" after reading the body,
 * with the status from ?status= after ?ms= milliseconds.
 */
async function start(o: Partial<HttpServerOptions> = {}) {
  const metricsPrefix = `rawtest${seq++}`;
  const s = await startTestServer({ metricsPrefix, ...o }, (server) => {
    server.app.addHook('onRequest', (req, _reply, done) => {
      viaFastify.add(req.raw);
      done();
    });
    server.registerRawCatchAll((req, res) => {
      const args = new URL(req.url ?? '/', 'http://x').searchParams;
      const body = `raw ${req.method} ${req.url} ${viaFastify.has(req) ? 'fastify' : 'raw'}`;
      req.resume();
      req.on('end', () => setTimeout(() => {
        res.writeHead(Number(args.get('status') ?? 200), { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }, Number(args.get('ms') ?? 0)));
    });
  });
  cleanups.push(s.stop);
  return { ...s, metricsPrefix };
}

async function call(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const res = await request(url, { method: (o.method ?? 'GET') as 'GET', headers: o.headers ?? {}, ...(o.body === undefined ? {} : { body: o.body }) });
  return { status: res.statusCode, body: await res.body.text() };
}

describe('raw catch-all route', () => {
  it('serves every path no other route has, with any method and body, and leaves the others to fastify', async () => {
    const s = await start();
    const f = async (method: string, path: string, want: string | number) => {
      const r = await call(`${s.base}${path}`, { method, ...(method === 'POST' ? { body: 'payload' } : {}) });
      if (typeof want === 'number') expect(r.status, path).toBe(want);
      else expect(r.body, path).toBe(want);
    };
    await f('GET', '/api/v1/query?query=up', 'raw GET /api/v1/query?query=up raw');
    await f('POST', '/api/v1/write', 'raw POST /api/v1/write raw');
    await f('GET', '/', 'raw GET / raw');
    await f('GET', '/metrics/', 'raw GET /metrics/ raw');
    await f('POST', '/metrics', 'raw POST /metrics fastify');
    await f('GET', '/a%2Fb', 'raw GET /a%2Fb fastify');
    await f('GET', '/health', 'OK');
    await f('GET', '/echo', 'ip=127.0.0.1 url=/echo');
    expect((await call(`${s.base}/metric%73`)).body).toContain('# HELP');
  });

  it('is public: -httpAuth.* protects the other routes only', async () => {
    const s = await start({ basicAuth: { username: 'u', password: 'p' } });
    expect((await call(`${s.base}/x`)).status).toBe(200);
    expect((await call(`${s.base}/x%41`)).status).toBe(200);
    expect((await call(`${s.base}/echo`)).status).toBe(401);
  });

  it('serves under -http.pathPrefix only', async () => {
    const s = await start({ pathPrefix: '/strata' });
    expect((await call(`${s.base}/strata/x?y=1`)).body).toBe('raw GET /strata/x?y=1 raw');
    expect((await call(`${s.base}/strata/health`)).body).toBe('OK');
    expect((await call(`${s.base}/x`)).status).toBe(404);
  });

  it('counts requests under the route "/*" and error statuses by code', async () => {
    const s = await start();
    await call(`${s.base}/a`);
    await call(`${s.base}/b?status=502`);
    await call(`${s.base}/c%41?status=502`);
    const text = await writeMetrics();
    expect(text).toContain(`${s.metricsPrefix}_http_requests_total{path="/*"} 3`);
    expect(text).toContain(`${s.metricsPrefix}_http_request_errors_total{path="/*",code="502"} 2`);
  });

  it('lets a raw response in flight at -http.connTimeout finish, then closes with Connection: close', async () => {
    const s = await start({ connTimeoutMs: 100 });
    const out = await new Promise<string>((resolve) => {
      const sock: Socket = connect(s.port, '127.0.0.1', () => sock.write('GET /late?ms=400 HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      sock.on('data', (d) => (text += d.toString()));
      sock.on('close', () => resolve(text));
    });
    expect(out).toContain('raw GET /late?ms=400 raw');
    expect(out.toLowerCase()).toContain('connection: close');
  });
});
