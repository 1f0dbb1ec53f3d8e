import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Backend, basic, type ProxyUnderTest, startBackend, startProxy } from './harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(yaml: (b: Backend) => string, o: Parameters<typeof startProxy>[1] = {}, holdMs = 300) {
  const b = await startBackend('slow', (_req, res) => void setTimeout(() => res.end('done'), holdMs));
  cleanup.push(() => b.kill());
  const p = await startProxy(yaml(b), o);
  cleanup.push(() => p.stop());
  return { b, p };
}

async function call(p: ProxyUnderTest, auth?: string) {
  const r = await request(`${p.base}/x`, { headers: auth === undefined ? {} : { authorization: auth } });
  return { status: r.statusCode, retryAfter: r.headers['retry-after'], text: await r.body.text() };
}

async function metric(p: ProxyUnderTest, line: RegExp): Promise<number> {
  const text = await (await request(`${p.base}/metrics`)).body.text();
  const m = new RegExp(`^${line.source} (\\S+)$`, 'm').exec(text);
  return m === null ? NaN : Number(m[1]);
}

describe('concurrency limits', () => {
  it('answers 429 with Retry-After: 10 once -maxConcurrentRequests is held past -maxQueueDuration', async () => {
    const { p } = await setup((b) => `users: [{username: u, password: p, url_prefix: "${b.url}"}]`, { flags: { maxConcurrentRequests: 2, maxQueueDurationMs: 50 } });
    const results = await Promise.all(Array.from({ length: 5 }, () => call(p, basic('u', 'p'))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    const rejected = results.find((r) => r.status === 429)!;
    expect(rejected.retryAfter).toBe('10');
    expect(rejected.text).toMatch(/-maxConcurrentRequests=2/);
    expect(await metric(p, /authproxy_concurrent_requests_limit_reached_total/)).toBe(3);
    expect(await metric(p, /authproxy_concurrent_requests_capacity/)).toBe(2);
    expect(await metric(p, /authproxy_concurrent_requests_current/)).toBe(0);
  });

  it('queues requests up to -maxQueueDuration and serves them when a slot frees', async () => {
    const { p } = await setup((b) => `users: [{username: u, password: p, url_prefix: "${b.url}"}]`, { flags: { maxConcurrentRequests: 1, maxQueueDurationMs: 5000 } }, 100);
    const results = await Promise.all(Array.from({ length: 4 }, () => call(p, basic('u', 'p'))));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it('applies max_concurrent_requests per user, -maxConcurrentPerUserRequests by default, and counts per user', async () => {
    const { p } = await setup((b) => `
users:
- {username: one, password: p, url_prefix: "${b.url}", max_concurrent_requests: 1}
- {username: two, password: p, name: second, url_prefix: "${b.url}"}
- {username: free, password: p, url_prefix: "${b.url}", max_concurrent_requests: 10}
`, { flags: { maxConcurrentPerUserRequests: 2, maxQueueDurationMs: 50 } });
    const one = Promise.all(Array.from({ length: 3 }, () => call(p, basic('one', 'p'))));
    const two = Promise.all(Array.from({ length: 3 }, () => call(p, basic('two', 'p'))));
    const free = Promise.all(Array.from({ length: 3 }, () => call(p, basic('free', 'p'))));
    await delay(100);
    expect(await metric(p, /authproxy_user_concurrent_requests_current\{username="one"\}/)).toBe(1);
    expect(await metric(p, /authproxy_user_concurrent_requests_current\{username="second"\}/)).toBe(2);
    expect((await one).map((r) => r.status).sort()).toEqual([200, 429, 429]);
    expect((await two).map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect((await free).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await metric(p, /authproxy_user_concurrent_requests_limit_reached_total\{username="one"\}/)).toBe(2);
    expect(await metric(p, /authproxy_user_concurrent_requests_limit_reached_total\{username="second"\}/)).toBe(1);
    expect(await metric(p, /authproxy_user_concurrent_requests_capacity\{username="second"\}/)).toBe(2);
    expect(await metric(p, /authproxy_user_concurrent_requests_capacity\{username="free"\}/)).toBe(10);
    expect(await metric(p, /authproxy_user_requests_total\{username="one"\}/)).toBe(3);
    expect(await metric(p, /authproxy_user_request_duration_seconds_count\{username="free"\}/)).toBe(3);
  });

  it('limits the unauthorized_user section on its own', async () => {
    const { p } = await setup((b) => `
users: [{username: u, password: p, url_prefix: "${b.url}"}]
unauthorized_user: {url_prefix: "${b.url}", max_concurrent_requests: 1}
`, { flags: { maxQueueDurationMs: 50 } });
    const results = await Promise.all([call(p), call(p), call(p, basic('u', 'p'))]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect(await metric(p, /authproxy_unauthorized_user_concurrent_requests_limit_reached_total/)).toBe(1);
    expect(await metric(p, /authproxy_unauthorized_user_concurrent_requests_capacity/)).toBe(1);
    expect(await metric(p, /authproxy_unauthorized_user_requests_total/)).toBe(2);
  });

  it('frees the queue slot of a client that disconnects while waiting', async () => {
    const { p } = await setup((b) => `users: [{username: u, password: p, url_prefix: "${b.url}"}]`, { flags: { maxConcurrentRequests: 1, maxQueueDurationMs: 5000 } }, 200);
    const first = call(p, basic('u', 'p'));
    await delay(30);
    const ac = new AbortController();
    const waiting = request(`${p.base}/x`, { headers: { authorization: basic('u', 'p') }, signal: ac.signal }).catch((e: Error) => e);
    await delay(30);
    ac.abort();
    await waiting;
    expect((await first).status).toBe(200);
    expect((await call(p, basic('u', 'p'))).status).toBe(200);
    expect(await metric(p, /authproxy_concurrent_requests_current/)).toBe(0);
  });
});

describe('ip_filters', () => {
  it('denies by global and per-user filters with 403 (deny wins), and counts denials', async () => {
    const { p } = await setup((b) => `
ip_filters: {deny_list: ["10.0.0.0/8"]}
users:
- {username: inside, password: p, url_prefix: "${b.url}", ip_filters: {allow_list: ["127.0.0.0/8"]}}
- {username: outside, password: p, url_prefix: "${b.url}", ip_filters: {allow_list: ["192.168.0.0/16"]}}
- {username: denied, password: p, url_prefix: "${b.url}", ip_filters: {allow_list: ["127.0.0.1"], deny_list: ["127.0.0.1"]}}
`, { eula: true }, 1);
    expect((await call(p, basic('inside', 'p'))).status).toBe(200);
    const out = await call(p, basic('outside', 'p'));
    expect([out.status, out.text]).toEqual([403, 'access from 127.0.0.1 is denied by ip_filters']);
    expect((await call(p, basic('denied', 'p'))).status).toBe(403);
    expect(await metric(p, /authproxy_http_request_errors_total\{reason="ip_denied"\}/)).toBe(2);
  });

  it('applies the global filter before authentication', async () => {
    const { b, p } = await setup((bk) => `
ip_filters: {allow_list: ["192.0.2.0/24"]}
users: [{username: u, password: p, url_prefix: "${bk.url}"}]
`, { eula: true }, 1);
    expect((await call(p, basic('u', 'p'))).status).toBe(403);
    expect((await call(p)).status).toBe(403);
    expect(b.seen).toHaveLength(0);
  });

  it('refuses a config with ip_filters without -eula', async () => {
    const b = await startBackend('b');
    cleanup.push(() => b.kill());
    await expect(startProxy(`users: [{username: u, url_prefix: "${b.url}", ip_filters: {deny_list: ["10.0.0.1"]}}]`)).rejects.toThrow(/enterprise feature.*-eula/);
  });
});
