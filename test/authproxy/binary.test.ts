// Process-level tests: the real `authproxy` binary with its flags, TLS in front, SIGHUP reload,
// PROXY protocol, and load beyond its limits.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runProcess, type StartedProcess, startProcess } from '../e2e/process-harness.ts';
import { type Backend, basic, startBackend } from './harness.ts';

const BIN = 'src/cmd/authproxy.ts';
const running: StartedProcess[] = [];
const backends: Backend[] = [];
afterEach(async () => {
  running.splice(0).forEach((p) => p.kill('SIGKILL'));
  await Promise.all(backends.splice(0).map((b) => b.kill()));
});

function configFile(yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'authproxy-bin-')), 'auth.yml');
  writeFileSync(path, yaml);
  return path;
}

async function start(args: string[], env: Record<string, string> = {}) {
  const p = startProcess(BIN, ['-httpListenAddr=127.0.0.1:0', '-loggerLevel=INFO', ...args], env);
  running.push(p);
  const [, scheme, addr] = await p.waitForOutput(/authproxy listening on (https?):\/\/(\S+)/);
  return { p, base: `${scheme}://${addr}` };
}

async function backend(name: string, handler?: Parameters<typeof startBackend>[1]) {
  const b = await startBackend(name, handler);
  backends.push(b);
  return b;
}

describe('authproxy binary', () => {
  it('refuses to start without -auth.config or with an invalid config', async () => {
    const missing = await runProcess(BIN, ['-httpListenAddr=127.0.0.1:0']);
    expect(missing.code).toBe(2);
    expect(missing.output).toMatch(/-auth\.config/);
    const bad = await runProcess(BIN, ['-httpListenAddr=127.0.0.1:0', `-auth.config=${configFile('users: [{username: a, url_prefix: "http://x", nope: 1}]')}`]);
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/cannot start authproxy.*unknown key "nope" in user "a"/s);
    const limits = await runProcess(BIN, ['-maxConcurrentRequests=0', `-auth.config=${configFile('users: [{username: a, url_prefix: "http://x"}]')}`]);
    expect(limits.code).toBe(2);
    expect(limits.output).toMatch(/-maxConcurrentRequests must be at least 1/);
  });

  it('serves HTTPS with -tls and reloads its config on SIGHUP', async () => {
    const [a, b] = await Promise.all([backend('a'), backend('b')]);
    const cfg = configFile(`users: [{username: u, password: one, url_prefix: "${a.url}"}]`);
    const { p, base } = await start(['-tls', `-tlsCertFile=${repoRoot}src/lib/httpserver/testdata/a.crt`, `-tlsKeyFile=${repoRoot}src/lib/httpserver/testdata/a.key`, `-auth.config=${cfg}`]);
    expect(base.startsWith('https://')).toBe(true);
    const tls = new Agent({ connect: { ca: readFileSync(`${repoRoot}src/lib/httpserver/testdata/a.crt`) } });
    const get = async (auth?: string) => {
      const r = await request(`${base}/q`, { dispatcher: tls, headers: auth === undefined ? {} : { authorization: auth } });
      return { status: r.statusCode, text: await r.body.text() };
    };
    expect(await get(basic('u', 'one'))).toEqual({ status: 200, text: 'a GET /q 0' });
    expect((await get()).status).toBe(401);
    writeFileSync(cfg, `users: [{username: u, password: two, url_prefix: "${b.url}"}]`);
    p.kill('SIGHUP');
    await p.waitForOutput(/reloaded auth config/);
    expect(await get(basic('u', 'two'))).toEqual({ status: 200, text: 'b GET /q 0' });
    expect((await get(basic('u', 'one'))).status).toBe(401);
    await tls.close();
  });

  it('takes the client address from the PROXY protocol header with -httpListenAddr.useProxyProtocol', async () => {
    const a = await backend('a', (req, res) => res.end(String(req.headers['x-forwarded-for'])));
    const { base } = await start(['-httpListenAddr.useProxyProtocol', `-auth.config=${configFile(`users: [{username: u, password: p, url_prefix: "${a.url}"}]`)}`]);
    const port = Number(new URL(base).port);
    const response = await new Promise<string>((resolve, reject) => {
      const s = connect(port, '127.0.0.1');
      let out = '';
      s.on('data', (d) => (out += d.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
      s.write(`PROXY TCP4 198.51.100.7 127.0.0.1 5555 ${port}\r\nGET /x HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('u', 'p')}\r\nConnection: close\r\n\r\n`);
    });
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response.endsWith('198.51.100.7')).toBe(true);
  });

  it('answers only 200 or 429 under load far beyond its limits, stays up and bounded in memory', async () => {
    const slow = await backend('slow', (_req, res) => void setTimeout(() => res.end('ok'), 50));
    const cfg = configFile(`users: [{username: u, password: p, url_prefix: "${slow.url}"}]`);
    const { p, base } = await start(['-maxConcurrentRequests=20', '-maxConcurrentPerUserRequests=15', '-maxQueueDuration=100ms', `-auth.config=${cfg}`]);
    const client = new Agent({ connections: 400 });
    const statuses = new Map<number, number>();
    await Promise.all(Array.from({ length: 800 }, async () => {
      const r = await request(`${base}/x`, { dispatcher: client, headers: { authorization: basic('u', 'p') } });
      await r.body.dump();
      statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1);
    }));
    await client.close();
    expect([...statuses.keys()].sort()).toEqual([200, 429]);
    expect(statuses.get(200)! + statuses.get(429)!).toBe(800);
    expect((await request(`${base}/health`)).statusCode).toBe(200);
    const rssKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${p.child.pid}/status`, 'utf8'))?.[1]);
    expect(rssKb).toBeLessThan(300 * 1024);
    const metrics = await (await request(`${base}/metrics`)).body.text();
    const limited = Number(/^authproxy_concurrent_requests_limit_reached_total (\d+)/m.exec(metrics)?.[1] ?? 0)
      + Number(/^authproxy_user_concurrent_requests_limit_reached_total\{username="u"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    expect(limited).toBe(statuses.get(429));
  });

  it('with -threads=2 shares limits, metrics and reloads between the threads and stops cleanly', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    // The first round's one admitted request is held until the other eleven have their answers, so
    // none can arrive after the slot frees, however slow the machine (10 s bounds a broken limit).
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
      setTimeout(resolve, 10_000).unref();
    });
    const held = await backend('held', (_req, res) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      void released.then(() => {
        inFlight--;
        res.end('ok');
      });
    });
    const cfg = configFile(`users: [{username: u, password: one, url_prefix: "${held.url}", max_concurrent_requests: 1}]`);
    const { p, base } = await start(['-threads=2', '-maxQueueDuration=150ms', `-auth.config=${cfg}`]);
    expect(p.output()).toMatch(/with 2 threads/);
    // Each request on its own connection: the kernel spreads connections over both threads'
    // sockets (12 connections all on one thread: 1 in 2,048).
    const once = async (path: string, auth?: string, method = 'GET') => {
      const agent = new Agent({ connections: 1 });
      try {
        const r = await request(`${base}${path}`, { dispatcher: agent, method, headers: auth === undefined ? {} : { authorization: auth } });
        return { status: r.statusCode, text: await r.body.text() };
      } finally {
        await agent.close();
      }
    };
    let refused = 0;
    const statuses = (await Promise.all(Array.from({ length: 12 }, async () => {
      const r = await once('/q', basic('u', 'one'));
      if (r.status === 429 && ++refused === 11) release();
      return r;
    }))).map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: 11 }, () => 429)]);
    expect(maxInFlight).toBe(1);
    // Any thread's /metrics counts the requests of both.
    for (let i = 0; i < 4; i++) {
      const metrics = (await once('/metrics')).text;
      expect(metrics).toMatch(/^authproxy_user_requests_total\{username="u"\} 12$/m);
      expect(metrics).toMatch(/^authproxy_user_concurrent_requests_limit_reached_total\{username="u"\} 11$/m);
      expect(metrics).toMatch(/^authproxy_user_request_duration_seconds_count\{username="u"\} 12$/m);
    }
    // A reload asked of any thread is served by all once it is logged.
    writeFileSync(cfg, `users: [{username: u, password: two, url_prefix: "${held.url}"}]`);
    expect((await once('/-/reload', undefined, 'POST')).status).toBe(200);
    await p.waitForOutput(/reloaded auth config/);
    const after = await Promise.all(Array.from({ length: 12 }, () => once('/q', basic('u', 'two'))));
    expect(after.map((r) => r.status)).toEqual(Array.from({ length: 12 }, () => 200));
    expect((await once('/q', basic('u', 'one'))).status).toBe(401);
    // A rejected config is reported by whichever thread served /-/reload.
    writeFileSync(cfg, 'users: [{username: u, password: two, url_prefix: "http://x", bogus: 1}]');
    for (let i = 0; i < 4; i++) {
      const r = await once('/-/reload', undefined, 'POST');
      expect([r.status, r.text]).toEqual([500, expect.stringMatching(/^invalid auth config .*unknown key "bogus" in user "u".*; the previous config is still in use$/)]);
    }
    expect((await once('/q', basic('u', 'two'))).status).toBe(200);
    p.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/stopped authproxy threads/);
  });
});
