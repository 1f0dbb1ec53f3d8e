import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Backend, basic, type ProxyUnderTest, startBackend, startProxy } from './harness.ts';

const AUTH = basic('u', 'pw');
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(backends: Backend[], flags: Parameters<typeof startProxy>[1] = {}): Promise<ProxyUnderTest> {
  for (const b of backends) cleanup.push(() => b.kill());
  const p = await startProxy(`users:\n- username: u\n  password: pw\n  url_prefix: [${backends.map((b) => `"${b.url}"`).join(', ')}]\n`, flags);
  cleanup.push(() => p.stop());
  return p;
}

async function call(p: ProxyUnderTest, path: string, o: { method?: string; body?: Buffer | string; signal?: AbortSignal } = {}) {
  const r = await request(`${p.base}${path}`, { method: (o.method ?? 'GET') as 'GET', headers: { authorization: AUTH }, body: o.body ?? null, signal: o.signal });
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
}

const slow = (name: string, ms: number) => startBackend(name, (_req, res) => void setTimeout(() => res.end(name), ms));

describe('load balancing', () => {
  it('round-robins sequential requests and sends concurrent ones to the least loaded backend', async () => {
    const [a, b] = await Promise.all([startBackend('a'), startBackend('b')]);
    const p = await setup([a, b]);
    const names: string[] = [];
    for (let i = 0; i < 4; i++) names.push((await call(p, '/x')).text.split(' ')[0]!);
    expect(names).toEqual(['a', 'b', 'a', 'b']);
    const [c, d] = await Promise.all([slow('c', 300), startBackend('d')]);
    const q = await setup([c, d]);
    const first = call(q, '/slow');
    await delay(50);
    // c is busy with one request, so the next ones go to idle d whatever the round-robin position
    const rest: string[] = [];
    for (let i = 0; i < 3; i++) rest.push((await call(q, `/${i}`)).text.split(' ')[0]!);
    expect(rest).toEqual(['d', 'd', 'd']);
    expect((await first).text).toBe('c');
  });

  it('retries a failed request on the next backend and skips the failed one for -failTimeout', async () => {
    let now = 1_000_000;
    const [a, b] = await Promise.all([startBackend('a'), startBackend('b')]);
    const p = await setup([a, b], { now: () => now, flags: { failTimeoutMs: 3000 } });
    await b.kill();
    const texts: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(p, `/r${i}`, i === 1 ? { method: 'POST', body: 'small body' } : {});
      expect(r.status, r.text).toBe(200);
      texts.push(r.text);
    }
    expect(texts).toEqual(['a GET /r0 0', 'a POST /r1 10', 'a GET /r2 0', 'a GET /r3 0']);
    const metrics = await (await request(`${p.base}/metrics`)).body.text();
    expect(metrics).toMatch(new RegExp(`authproxy_backend_errors_total\\{backend="${b.url}"\\} 1\\n`));
    expect(metrics).toMatch(/authproxy_user_request_backend_errors_total\{username="u"\} 1\n/);
    // after -failTimeout the broken backend is tried again (and skipped again)
    now += 3001;
    for (let i = 0; i < 2; i++) expect((await call(p, '/again')).status).toBe(200);
    expect(p.logs.join('\n')).toMatch(/cannot proxy the request to "http:\/\/127\.0\.0\.1:\d+"; skipping this backend for -failTimeout/);
  });

  it('answers 502 when every backend failed, and 502 on -responseTimeout without retrying', async () => {
    const [a, b] = await Promise.all([startBackend('a'), startBackend('b')]);
    const p = await setup([a, b]);
    await Promise.all([a.kill(), b.kill()]);
    const r = await call(p, '/x');
    expect(r.status).toBe(502);
    expect(r.text).toMatch(/all backends failed; last error: .*ECONNREFUSED|all backends failed/);
    const hang = await startBackend('hang', () => {});
    const other = await startBackend('other');
    const q = await setup([hang, other], { flags: { responseTimeoutMs: 300 } });
    const t = await call(q, '/x');
    expect([t.status, t.text]).toEqual([502, `cannot proxy the request to "${hang.url}": no response within -responseTimeout`]);
    expect(other.seen).toHaveLength(0);
  });

  it('retries streamed bodies only while nothing was sent; 502 without marking the backend when it drops the upload, 503 when it fails after the whole body', async () => {
    const big = randomBytes(256 * 1024);
    const [a, dead] = await Promise.all([startBackend('a'), startBackend('dead')]);
    const p = await setup([dead, a], { flags: { maxRequestBodySizeToRetry: 1024 } });
    await dead.kill();
    const r = await call(p, '/upload', { method: 'POST', body: big });
    expect([r.status, r.text]).toEqual([200, `a POST /upload ${big.length}`]);
    // A backend that reads part of the body and then drops the connection: the body may be what it
    // refused, so it stays in rotation (one client must not be able to take backends out of it).
    const cutter = await startBackend('cutter', (req, res) => void (req.method === 'GET' && res.end(`cutter GET ${req.url} 0`)), { readBody: false });
    const good = await startBackend('good');
    const q = await setup([cutter, good], { flags: { maxRequestBodySizeToRetry: 1024, loadBalancingPolicy: 'first_available' } });
    // More than loopback's socket buffers can hold (send and receive together reach several MiB),
    // so the proxy is still sending when the backend drops the connection.
    const body = randomBytes(32 * 1024 * 1024);
    const cut = (async () => {
      while (cutter.seen.length === 0) await delay(5);
      await delay(20);
      for (const s of cutter.sockets) s.destroy();
    })();
    const s = await call(q, '/upload', { method: 'POST', body });
    await cut;
    expect(s.status, s.text).toBe(502);
    expect(s.text.startsWith(`cannot proxy the request to "${cutter.url}": the backend closed the connection while receiving the request body: `)).toBe(true);
    expect(good.seen).toHaveLength(0);
    expect((await call(q, '/next')).text).toBe('cutter GET /next 0');
    // A backend that took the whole body and then failed without an answer is skipped for -failTimeout.
    const taker = await startBackend('taker', (req) => req.socket.destroy());
    const w = await setup([taker, good], { flags: { maxRequestBodySizeToRetry: 1024, loadBalancingPolicy: 'first_available' } });
    const t = await call(w, '/upload', { method: 'POST', body });
    expect(t.status, t.text).toBe(503);
    expect(t.text).toMatch(/cannot retry the request on another backend/);
    expect(good.seen).toHaveLength(0);
    expect((await call(w, '/next')).text).toBe('good GET /next 0');
  });
});

describe('streaming', () => {
  it('streams large request and response bodies byte-exact', async () => {
    const payload = randomBytes(8 * 1024 * 1024);
    const echo = await startBackend('echo', (req, res, body) => {
      if (req.method === 'POST') res.end(createHash('sha256').update(body).digest('hex'));
      else res.end(payload);
    });
    const p = await setup([echo]);
    const down = await request(`${p.base}/big`, { headers: { authorization: AUTH } });
    const got = Buffer.from(await down.body.arrayBuffer());
    expect(got.length).toBe(payload.length);
    expect(got.equals(payload)).toBe(true);
    const up = randomBytes(3 * 1024 * 1024 + 17);
    const r = await call(p, '/up', { method: 'POST', body: up });
    expect(r.text).toBe(createHash('sha256').update(up).digest('hex'));
  });

  it('streams a chunked request body and a slow chunked response without buffering them whole', async () => {
    const trickle = await startBackend('trickle', (_req, res, body) => {
      res.write(`got ${body.length};`);
      let n = 0;
      const t = setInterval(() => {
        res.write(`chunk${n};`);
        if (++n === 3) {
          clearInterval(t);
          res.end();
        }
      }, 30);
    });
    const p = await setup([trickle]);
    async function* gen() {
      for (let i = 0; i < 5; i++) yield Buffer.alloc(10_000, i);
    }
    const r = await request(`${p.base}/t`, { method: 'POST', headers: { authorization: AUTH }, body: Readable.from(gen()) });
    const chunks: string[] = [];
    for await (const c of r.body) chunks.push((c as Buffer).toString());
    expect(chunks.join('')).toBe('got 50000;chunk0;chunk1;chunk2;');
    // the pieces arrive as the backend writes them, not as one buffered response
    expect(chunks.length).toBeGreaterThanOrEqual(3);
  });

  it('pauses the backend for a client that does not read instead of buffering the response', async () => {
    const total = 64 * 1024 * 1024;
    let backendFinished = false;
    const flood = await startBackend('flood', (_req, res) => {
      res.writeHead(200, { 'content-length': String(total) });
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(() => {
          backendFinished = true;
        });
      };
      pump();
    });
    const p = await setup([flood], { bufferBudgetBytes: 64 * 1024 });
    const r = await request(`${p.base}/flood`, { headers: { authorization: AUTH } });
    r.body.pause();
    await delay(500);
    // kernel socket buffers hold a few MiB at most: the proxy must have stopped reading the backend
    expect(backendFinished).toBe(false);
    let got = 0;
    for await (const c of r.body) got += (c as Buffer).length;
    expect(got).toBe(total);
    expect(backendFinished).toBe(true);
  });

  it('never stalls a response with the smallest window, whatever the client reads', async () => {
    const payload = randomBytes(4 * 1024 * 1024);
    const b = await startBackend('b', (_req, res) => res.end(payload));
    const p = await setup([b], { bufferBudgetBytes: 1 });
    for (let i = 0; i < 5; i++) {
      const r = await request(`${p.base}/x${i}`, { headers: { authorization: AUTH } });
      const got = Buffer.from(await r.body.arrayBuffer());
      expect(got.equals(payload)).toBe(true);
    }
  });

  it('cancels the upstream request when the client disconnects', async () => {
    let upstreamClosed = false;
    const hold = await startBackend('hold', (_req, res) => {
      res.once('close', () => {
        upstreamClosed = true;
      });
    });
    const p = await setup([hold]);
    const ac = new AbortController();
    const pending = call(p, '/hold', { signal: ac.signal }).catch((err: Error) => err);
    while (hold.seen.length === 0) await delay(5);
    ac.abort();
    expect(await pending).toBeInstanceOf(Error);
    for (let i = 0; i < 100 && !upstreamClosed; i++) await delay(10);
    expect(upstreamClosed).toBe(true);
  });

  it('cuts the client connection when a backend dies mid-response, never passing a truncated body as complete', async () => {
    const half = await startBackend('half', (_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'.repeat(100));
      setTimeout(() => res.destroy(), 20);
    });
    const p = await setup([half]);
    const r = await request(`${p.base}/h`, { headers: { authorization: AUTH } });
    expect(r.statusCode).toBe(200);
    await expect(r.body.text()).rejects.toThrow();
    expect((await call(p, '/health')).status).toBe(200);
  });

  it('fails or retries only the requests in flight to a backend killed mid-test', async () => {
    const [a, b] = await Promise.all([slow('a', 200), slow('b', 200)]);
    const p = await setup([a, b]);
    const inFlight = Array.from({ length: 10 }, (_, i) => call(p, `/f${i}`));
    while (a.inFlight + b.inFlight < 10) await delay(5);
    await b.kill();
    const results = await Promise.all(inFlight);
    // GETs to the killed backend are retried on the live one: every client gets a.
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.every((r) => r.text === 'a')).toBe(true);
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => call(p, `/g${i}`)));
    expect(after.map((r) => [r.status, r.text])).toEqual(Array(6).fill([200, 'a']));
  });
});
