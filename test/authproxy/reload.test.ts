import { rmSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { basic, type ProxyUnderTest, startBackend, startProxy } from './harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function get(p: ProxyUnderTest, path: string, auth?: string) {
  const r = await request(`${p.base}${path}`, { method: 'GET', headers: auth === undefined ? {} : { authorization: auth } });
  return { status: r.statusCode, text: await r.body.text() };
}

async function metric(p: ProxyUnderTest, name: string): Promise<number> {
  const text = await (await request(`${p.base}/metrics`)).body.text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m === null ? NaN : Number(m[1]);
}

async function until(cond: () => Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await delay(20);
  }
}

async function setup(o: Parameters<typeof startProxy>[1] = {}) {
  const [a, b] = await Promise.all([startBackend('a'), startBackend('b')]);
  const p = await startProxy(`users: [{username: u, password: one, url_prefix: "${a.url}"}]`, o);
  cleanup.push(() => a.kill(), () => b.kill(), () => p.stop());
  return { a, b, p };
}

describe('config reload', () => {
  it('reloads on /-/reload (any method, 200 empty body) and serves the new config', async () => {
    const { b, p } = await setup();
    p.writeConfig(`users: [{username: u, password: two, url_prefix: "${b.url}"}]`);
    const r = await request(`${p.base}/-/reload`, { method: 'POST' });
    expect([r.statusCode, await r.body.text()]).toEqual([200, '']);
    await until(async () => (await get(p, '/x', basic('u', 'two'))).status === 200);
    expect((await get(p, '/x', basic('u', 'two'))).text).toBe('b GET /x 0');
    expect((await get(p, '/x', basic('u', 'one'))).status).toBe(401);
    expect(await metric(p, 'authproxy_config_last_reload_successful')).toBe(1);
  });

  it('keeps the old config when the new one is invalid, and reports it', async () => {
    const { p } = await setup();
    const errorsBefore = await metric(p, 'authproxy_config_last_reload_errors_total');
    p.writeConfig('users: [{username: u, password: one, url_prefix: "http://x", bogus: 1}]');
    expect(await p.component.reloadConfig()).toEqual({ ok: false, reason: expect.stringMatching(/^invalid auth config ".*auth\.yml": .*unknown key "bogus" in user "u".*; the previous config is still in use$/) });
    expect(await metric(p, 'authproxy_config_last_reload_successful')).toBe(0);
    expect(await metric(p, 'authproxy_config_last_reload_errors_total')).toBe(errorsBefore + 1);
    expect((await get(p, '/x', basic('u', 'one'))).text).toBe('a GET /x 0');
    expect(p.logs.join('\n')).toMatch(/invalid auth config ".*auth\.yml"; keeping the previous config.*unknown key "bogus" in user "u"/s);
  });

  it('answers /-/reload with 500 and the reason when the new config is invalid or cannot be read; the old one still serves', async () => {
    const { p } = await setup();
    p.writeConfig('users: [{username: u, password: one, url_prefix: "http://x", bogus: 1}]');
    const bad = await request(`${p.base}/-/reload`, { method: 'POST' });
    expect(bad.statusCode).toBe(500);
    expect(await bad.body.text()).toMatch(/^invalid auth config ".*auth\.yml": .*unknown key "bogus" in user "u".*; the previous config is still in use$/);
    expect((await get(p, '/x', basic('u', 'one'))).text).toBe('a GET /x 0');
    rmSync(p.configPath);
    const gone = await request(`${p.base}/-/reload`);
    expect(gone.statusCode).toBe(500);
    expect(await gone.body.text()).toMatch(/^cannot load auth config ".*auth\.yml": .*; the previous config is still in use$/);
    expect((await get(p, '/x', basic('u', 'one'))).text).toBe('a GET /x 0');
  });

  it('re-reads the file every -configCheckInterval', async () => {
    const { b, p } = await setup({ flags: { configCheckIntervalMs: 50 } });
    p.writeConfig(`users: [{username: u, password: one, url_prefix: "${b.url}"}]`);
    await until(async () => (await get(p, '/x', basic('u', 'one'))).text === 'b GET /x 0');
  });

  it('protects /-/reload with -reloadAuthKey', async () => {
    const { b, p } = await setup({ flags: { reloadAuthKey: 'k' } });
    p.writeConfig(`users: [{username: u, password: one, url_prefix: "${b.url}"}]`);
    expect((await get(p, '/-/reload')).status).toBe(401);
    expect((await get(p, '/-/reload?authKey=wrong')).status).toBe(401);
    await delay(50);
    expect((await get(p, '/x', basic('u', 'one'))).text).toBe('a GET /x 0');
    expect((await get(p, '/-/reload?authKey=k')).status).toBe(200);
    await until(async () => (await get(p, '/x', basic('u', 'one'))).text === 'b GET /x 0');
  });

  it('loads the config from an http URL and substitutes %{ENV} placeholders', async () => {
    const a = await startBackend('a');
    const src = await startBackend('src', (_req, res) => res.end(`users: [{username: u, password: "%{PW}", url_prefix: "${a.url}"}]`));
    cleanup.push(() => a.kill(), () => src.kill());
    const q = await startProxy('', { env: { PW: 'from-env' }, configLocation: `${src.url}/auth.yml` });
    cleanup.push(() => q.stop());
    expect((await get(q, '/x', basic('u', 'from-env'))).text).toBe('a GET /x 0');
    expect(src.seen.map((s) => s.url)).toEqual(['/auth.yml']);
    // an undefined variable is a config error
    await expect(startProxy('', { env: {}, configLocation: `${src.url}/auth.yml` })).rejects.toThrow(/undefined environment variable %\{PW\}/);
    const missing = await startBackend('404', (_req, res) => res.writeHead(404).end('nope'));
    cleanup.push(() => missing.kill());
    await expect(startProxy('', { configLocation: `${missing.url}/auth.yml` })).rejects.toThrow(/cannot fetch auth config .*status 404/);
  });

  it('keeps in-flight requests and per-user slots across a reload', async () => {
    const slow = await startBackend('slow', (_req, res) => void setTimeout(() => res.end('slow'), 200));
    cleanup.push(() => slow.kill());
    const p = await startProxy(`users: [{username: u, password: one, url_prefix: "${slow.url}", max_concurrent_requests: 1}]`, { flags: { maxQueueDurationMs: 20 } });
    cleanup.push(() => p.stop());
    const inFlight = get(p, '/x', basic('u', 'one'));
    await delay(50);
    p.writeConfig(`users: [{username: u, password: one, url_prefix: "${slow.url}", max_concurrent_requests: 1, headers: ["X-New: 1"]}]`);
    expect(await p.component.reloadConfig()).toEqual({ ok: true });
    // the slot held before the reload still counts against the same user
    expect((await get(p, '/y', basic('u', 'one'))).status).toBe(429);
    expect((await inFlight).text).toBe('slow');
  });
});

