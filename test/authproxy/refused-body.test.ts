// Process-level: a real tsdb behind the real auth proxy refuses request bodies over its
// -maxInsertRequestSize by answering 413 before it has read them and closing the connection. The
// proxy must pass that 413 on, must not count it as a backend failure (one client must not be able
// to take backends out of rotation), and must be left with nothing that delays its shutdown.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, afterEach, expect, it } from 'vitest';
import { startProcess, type StartedProcess } from '../e2e/process-harness.ts';
import { getJson } from '../tsdb/client.ts';
import { killAll, makeTempDir, removeTempDirs, startTsdb } from '../tsdb/harness.ts';
import { basic } from './harness.ts';

const running: StartedProcess[] = [];
afterEach(async () => {
  running.splice(0).forEach((p) => p.kill('SIGKILL'));
  await killAll();
});
afterAll(removeTempDirs);

const AUTH = basic('u', 'p');

async function startAuthProxy(backend: string): Promise<{ p: StartedProcess; base: string }> {
  const cfg = join(mkdtempSync(join(tmpdir(), 'authproxy-refused-')), 'auth.yml');
  writeFileSync(cfg, `users: [{username: u, password: p, url_prefix: "${backend}"}]\n`);
  // A -failTimeout of an hour: a backend marked failed would stay out of rotation for the rest of the test.
  const p = startProcess('src/cmd/authproxy.ts', ['-httpListenAddr=127.0.0.1:0', '-threads=1', '-failTimeout=1h', `-auth.config=${cfg}`]);
  running.push(p);
  const [, addr] = await p.waitForOutput(/authproxy listening on http:\/\/(\S+)/);
  return { p, base: `http://${addr}` };
}

async function backendErrors(base: string): Promise<number> {
  const text = await (await request(`${base}/metrics`)).body.text();
  return [...text.matchAll(/^authproxy_backend_errors_total\{[^}]*\} (\S+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

it('passes on the 413 of a backend that refuses an over-limit body, keeps the backend in rotation and stops at once', { timeout: 120_000 }, async () => {
  const dir = await makeTempDir('refused-body');
  // The report this test comes from sent 50 MB to a limit of 32 MiB; a quarter of that is as far
  // beyond what the sockets buffer and keeps the test's traffic down.
  const tsdb = await startTsdb(join(dir, 'tsdb'), ['-maxInsertRequestSize=8MiB']);
  const { p, base } = await startAuthProxy(tsdb.base);
  const big = Buffer.alloc(12_500_000, 'refused_metric 1\n');
  const errorsBefore = await backendErrors(base);
  const answers: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await request(`${base}/api/v1/import/prometheus`, { method: 'POST', body: big, headers: { authorization: AUTH } });
    answers.push(`${r.statusCode} ${await r.body.text()}`);
  }
  for (const a of answers) expect(a).toMatch(/^413 .*see -maxInsertRequestSize/);
  // A body sent without Content-Length is refused once 8 MiB were read: the same answer.
  const chunked = await request(`${base}/api/v1/import/prometheus`, {
    method: 'POST', headers: { authorization: AUTH }, body: Readable.from((function* () {
      for (let i = 0; i < 5; i++) yield big.subarray(i * 2_500_000, (i + 1) * 2_500_000);
    })()),
  });
  expect(`${chunked.statusCode} ${await chunked.body.text()}`).toMatch(/^413 .*see -maxInsertRequestSize/);
  expect(await backendErrors(base)).toBe(errorsBefore);

  // The backend is still in rotation: the next small request is served by it.
  const small = await request(`${base}/api/v1/import/prometheus`, { method: 'POST', body: 'accepted_metric 7\n', headers: { authorization: AUTH } });
  expect([small.statusCode, await small.body.text()]).toEqual([204, '']);
  const got = await getJson<{ data: { result: Array<{ value: [number, string] }> } }>(`${tsdb.base}/api/v1/query`, { query: 'accepted_metric' });
  expect(got.data.result.map((s) => s.value[1])).toEqual(['7']);

  // A client that reads the 413 and goes on uploading slowly must not hold up the shutdown either.
  const slow = await slowUploader(base);
  const t0 = performance.now();
  p.kill('SIGTERM');
  expect(await p.exited).toBe(0);
  expect(performance.now() - t0).toBeLessThan(1000);
  expect(await slow.closed).toBe(true);
});

/**
 * slowUploader announces a 12.5 MB body, sends 1 MiB of it, waits for the proxy's 413 and then
 * keeps sending 16 KiB every 20 ms without ever finishing; closed resolves when the proxy closes
 * the connection.
 */
async function slowUploader(base: string): Promise<{ closed: Promise<boolean> }> {
  const { hostname, port } = new URL(base);
  // allowHalfOpen: the proxy ending its side does not stop the upload (a client that ignores it).
  const s = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  let answer = '';
  const closed = new Promise<boolean>((resolve) => s.once('close', () => resolve(true)));
  s.on('error', () => {});
  s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  s.write(`POST /api/v1/import/prometheus HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: 12500000\r\n\r\n`);
  s.write(Buffer.alloc(1 << 20, 'refused_metric 1\n'));
  await expect.poll(() => answer, { timeout: 10_000, interval: 20 }).toMatch(/^HTTP\/1\.1 413 /);
  const chunk = Buffer.alloc(16 << 10, 'refused_metric 1\n');
  const timer = setInterval(() => s.destroyed || s.write(chunk), 20);
  void closed.then(() => clearInterval(timer));
  return { closed };
}
