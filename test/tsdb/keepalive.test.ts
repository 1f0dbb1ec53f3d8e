// Keep-alive clients against -http.connTimeout: Prometheus remote_write, vmagent, the benchmark
// kit's ingest client and curl scripts reuse connections, and a server that closes one under a
// request the client just sent loses that request ("socket hang up"). The server may retire a
// connection only by answering with "Connection: close"; these tests send requests around the
// moments the lifetime ends and expect every one answered and stored.

import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, post } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, startTsdb, type Tsdb } from './harness.ts';

const LIFETIME_MS = 300;
const T = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

let tsdb: Tsdb;
beforeAll(async () => {
  tsdb = await startTsdb(await makeTempDir('keepalive'), [`-http.connTimeout=${LIFETIME_MS}ms`]);
});
afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

interface Answer {
  readonly status: number;
  readonly connection: string;
  readonly reused: boolean;
}

/** postOnce POSTs body over agent (a keep-alive pool, as the kit's lib.mjs uses) and reads the whole answer. */
function postOnce(agent: Agent, path: string, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${tsdb.base}${path}`, { method: 'POST', agent, headers: { 'content-type': 'text/plain' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection ?? ''), reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** lines is one import body: `n` rows of series keepalive_test{req=k,i=…}. */
function lines(k: number, n: number): Buffer {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) rows.push(`keepalive_test{req="${k}",i="${i}"} ${i} ${T}`);
  return Buffer.from(`${rows.join('\n')}\n`);
}

describe('keep-alive connections across -http.connTimeout', () => {
  it('answers every request of a busy keep-alive client and retires connections with Connection: close', async () => {
    // The kit's shape: 2 parallel keep-alive connections, each sending the next large text body as
    // soon as the previous answer arrives, for many lifetimes. While the server parses one
    // connection's body, the other's next request waits unread: the moment a lifetime often ends.
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    const rowsPerBody = 2000;
    const until = Date.now() + 15 * LIFETIME_MS;
    const errors: string[] = [];
    let sent = 0, closes = 0, fresh = 0;
    await Promise.all([0, 1].map(async () => {
      while (Date.now() < until) {
        const k = sent++;
        try {
          const a = await postOnce(agent, '/api/v1/import/prometheus', lines(k, rowsPerBody));
          if (a.status !== 204) errors.push(`request ${k}: HTTP ${a.status}`);
          if (a.connection.toLowerCase() === 'close') closes++;
          if (!a.reused) fresh++;
        } catch (err) {
          errors.push(`request ${k}: ${(err as Error).message}`);
        }
      }
    }));
    agent.destroy();
    expect(errors).toEqual([]);
    // The lifetime did act: connections were retired (and new ones opened) during the run.
    expect(closes).toBeGreaterThanOrEqual(2);
    expect(fresh).toBeGreaterThan(2);
    expect((await post(`${tsdb.base}/internal/force_flush`)).status).toBe(200);
    const r = await getJson<{ data: { result: Array<{ value: [number, string] }> } }>(`${tsdb.base}/api/v1/query`, {
      query: 'count(keepalive_test)', time: String(T / 1000),
    });
    expect(Number(r.data.result[0]?.value[1])).toBe(sent * rowsPerBody);
  }, 60_000);

  it('answers a request sent on an idle connection after its lifetime ended, with Connection: close', async () => {
    const answers = await new Promise<string>((resolve, reject) => {
      const sock = connect(new URL(tsdb.base).port as unknown as number, '127.0.0.1');
      let text = '';
      sock.on('data', (d: Buffer) => (text += d.toString()));
      sock.on('error', reject);
      sock.on('close', () => resolve(text));
      sock.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      // Idle past the lifetime (and its 10% jitter), then reuse the connection as a client would.
      setTimeout(() => sock.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'), 2 * LIFETIME_MS);
    });
    const responses = answers.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[0]!.toLowerCase()).toContain('connection: keep-alive');
    expect(responses[1]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[1]!.toLowerCase()).toContain('connection: close');
  });
});
