// The cluster as processes on loopback: two tsdb-storage nodes, tsdb-insert with
// -replicationFactor=2, and tsdb-select at factor 2, at factor 1, and at factor 1 denying partial
// answers. A stream of acknowledged writes runs while a storage node is SIGKILLed and started
// again, and while one is frozen with SIGSTOP: every acknowledged sample must be found afterwards,
// and neither writes nor queries may wait on the dead or frozen node.

import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, removeTempDirs, sleep } from '../tsdb/harness.ts';
import { restartStorage, type Server, signal, startInsert, startSelect, startStorage, type StorageNode } from './harness.ts';

const TIMEOUT = '-storageNode.timeout=2s';
const SERIES = 20;
// Samples go back an hour from the start, one batch (a sample of every series) per second of data.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;

let nodes: StorageNode[] = [];
let insert: Server;
let select2: Server;
let select1: Server;
let select1Deny: Server;

beforeAll(async () => {
  nodes = await Promise.all([startStorage(), startStorage()]);
  [insert, select2, select1, select1Deny] = await Promise.all([
    startInsert(nodes, ['-replicationFactor=2', TIMEOUT, '-graphiteListenAddr=127.0.0.1:0', '-defaultTenantID=7:3']),
    startSelect(nodes, ['-replicationFactor=2', TIMEOUT]),
    startSelect(nodes, ['-replicationFactor=1', TIMEOUT]),
    startSelect(nodes, ['-replicationFactor=1', TIMEOUT, '-search.denyPartialResponse']),
  ]);
}, 300_000);

afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

/** Writer posts batches of SERIES samples of one metric, one timestamp per batch, and records the acknowledged ones. */
class Writer {
  readonly metric: string;
  seq = 0;
  readonly acked: number[] = [];
  readonly failed: string[] = [];
  readonly latencyMs: number[] = [];

  constructor(metric: string) {
    this.metric = metric;
  }

  async batch(): Promise<void> {
    const seq = this.seq++;
    const ts = T0 + seq * 1000;
    const body = Array.from({ length: SERIES }, (_, i) => `${this.metric}{i="${i}"} ${seq} ${ts}`).join('\n');
    const started = performance.now();
    const res = await fetch(`${insert.base}/insert/0/prometheus/api/v1/import/prometheus`, { method: 'POST', body });
    this.latencyMs.push(performance.now() - started);
    if (res.status === 204) this.acked.push(seq);
    else this.failed.push(`batch ${seq}: ${res.status} ${await res.text()}`);
  }

  async run(n: number): Promise<void> {
    for (let k = 0; k < n; k++) await this.batch();
  }
}

const writer = new Writer('stream');
// Rows acknowledged while one of the two nodes was down have one copy only (nothing re-replicates
// them), so the SIGSTOP test counts a metric of its own, written while both nodes were up and
// while one is frozen.
const frozenWriter = new Writer('frozen');

async function query(s: Server, q: string, extra: Record<string, string> = {}) {
  const time = String((T0 + Math.max(writer.seq, frozenWriter.seq) * 1000) / 1000);
  const res = await fetch(`${s.base}/select/0/prometheus/api/v1/query?${new URLSearchParams({ query: q, time, ...extra })}`);
  return { status: res.status, body: await res.json() as { status: string; isPartial?: boolean; error?: string; data?: { result: Array<{ value: [number, string] }> } } };
}

/** exported returns, per series, the sample values (= batch numbers) select finds. */
async function exported(s: Server, w: Writer): Promise<Map<string, Set<number>>> {
  const res = await fetch(`${s.base}/select/0/prometheus/api/v1/export?${new URLSearchParams({ 'match[]': w.metric, start: String(T0 / 1000 - 1) })}`);
  expect(res.status).toBe(200);
  const out = new Map<string, Set<number>>();
  for (const line of (await res.text()).trim().split('\n')) {
    if (line === '') continue;
    const o = JSON.parse(line) as { metric: { i: string }; values: number[] };
    out.set(o.metric.i, new Set(o.values));
  }
  return out;
}

async function expectEveryAckedSample(s: Server, w: Writer): Promise<void> {
  const got = await exported(s, w);
  const missing: string[] = [];
  for (let i = 0; i < SERIES; i++) {
    const values = got.get(String(i)) ?? new Set<number>();
    for (const seq of w.acked) if (!values.has(seq)) missing.push(`${w.metric}{i="${i}"} batch ${seq}`);
  }
  expect(missing.slice(0, 10), `${missing.length} acknowledged samples missing`).toEqual([]);
}

/** nodeUp polls a binary's /metrics until tsdb_storage_node_up says node is in rotation. */
async function nodeUp(s: Server, node: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const want = `tsdb_storage_node_up{node="${node}"} 1`;
  while (Date.now() < deadline) {
    if ((await (await fetch(`${s.base}/metrics`)).text()).includes(want)) return;
    await sleep(250);
  }
  throw new Error(`${s.base}: ${node} did not come back into rotation within ${timeoutMs} ms`);
}

const count = (r: Awaited<ReturnType<typeof query>>) => Number(r.body.data?.result[0]?.value[1]);

describe('cluster failover (processes on loopback)', () => {
  it('writes what the network receivers get to -defaultTenantID', async () => {
    const [, addr] = /graphite receiver listening on (\S+)/.exec(insert.proc.output())!;
    const [host, port] = [addr!.slice(0, addr!.lastIndexOf(':')), Number(addr!.slice(addr!.lastIndexOf(':') + 1))];
    const sock = createConnection(port, host);
    await new Promise<void>((resolve, reject) => sock.once('connect', resolve).once('error', reject));
    await new Promise<void>((resolve) => sock.end(`recv.metric;host=a 5 ${T0 / 1000}\n`, resolve));
    const q = (tenant: string) => fetch(`${select2.base}/select/${tenant}/prometheus/api/v1/series?${new URLSearchParams({ 'match[]': '{__name__="recv.metric"}', start: String(T0 / 1000 - 60), end: String(T0 / 1000 + 60) })}`).then((r) => r.json() as Promise<{ data: unknown[] }>);
    for (let i = 0; i < 100 && (await q('7:3')).data.length === 0; i++) await sleep(100);
    expect((await q('7:3')).data).toEqual([{ __name__: 'recv.metric', host: 'a' }]);
    expect((await q('0')).data).toEqual([]);
  }, 60_000);

  it('keeps every acknowledged write through a SIGKILL and restart of a storage node, with complete answers at factor 2', async () => {
    await writer.run(15);
    // Kill a node while writes are in flight.
    const stream = writer.run(15);
    await sleep(200);
    await signal(nodes[1]!.proc, 'SIGKILL');
    await stream;
    await writer.run(10);
    expect(writer.failed).toEqual([]);

    // During the outage: factor 2 answers completely; factor 1 says partial, or 503 when denied.
    const total = `sum(count_over_time(stream[2h]))`;
    const full = await query(select2, total);
    expect(full.body).toMatchObject({ status: 'success', isPartial: false });
    expect(count(full)).toBe(SERIES * writer.acked.length);
    const partial = await query(select1, total);
    expect(partial.body).toMatchObject({ status: 'success', isPartial: true });
    const denied = await query(select1Deny, total);
    expect(denied.status).toBe(503);
    expect(denied.body.error).toContain(nodes[1]!.selectAddr);
    expect(denied.body.error).toContain('-search.denyPartialResponse');

    // Back on its data and ports, the node returns to rotation by itself.
    nodes[1] = await restartStorage(nodes[1]!);
    await writer.run(5);
    await Promise.all([nodeUp(insert, nodes[1].insertAddr), nodeUp(select1, nodes[1].selectAddr)]);
    await writer.run(5);
    expect(writer.failed).toEqual([]);
    await expectEveryAckedSample(select2, writer);
    // Both nodes hold what was written before the kill (replication, and the WAL across SIGKILL).
    const afterRestart = await query(select1, total);
    expect(afterRestart.body).toMatchObject({ status: 'success', isPartial: false });
    expect(count(afterRestart)).toBe(SERIES * writer.acked.length);
  }, 300_000);

  it('lets neither writes nor queries wait on a storage node frozen with SIGSTOP', async () => {
    await frozenWriter.run(10);
    await signal(nodes[0]!.proc, 'SIGSTOP');
    try {
      // At most the first batch waits for the frozen node (2 s); the others skip it.
      await frozenWriter.run(10);
      expect(frozenWriter.failed).toEqual([]);
      const slow = frozenWriter.latencyMs.slice(10).filter((ms) => ms >= 1900);
      expect(slow.length).toBeLessThanOrEqual(1);
      // A query gives up on the frozen node within its own timeout…
      let started = performance.now();
      const bounded = await query(select1, 'count(frozen)', { timeout: '1s' });
      expect(performance.now() - started).toBeLessThan(4000);
      expect([200, 503]).toContain(bounded.status);
      // …and at factor 2 the answer is complete without it, within the node timeout.
      started = performance.now();
      const full = await query(select2, 'sum(count_over_time(frozen[2h]))');
      expect(performance.now() - started).toBeLessThan(5000);
      expect(full.body, JSON.stringify(full.body)).toMatchObject({ status: 'success', isPartial: false });
      expect(count(full)).toBe(SERIES * frozenWriter.acked.length);
    } finally {
      await signal(nodes[0]!.proc, 'SIGCONT');
    }
    await frozenWriter.run(3);
    await Promise.all([nodeUp(insert, nodes[0]!.insertAddr), nodeUp(select2, nodes[0]!.selectAddr)]);
    await frozenWriter.run(3);
    expect(frozenWriter.failed).toEqual([]);
    await expectEveryAckedSample(select2, frozenWriter);
    await expectEveryAckedSample(select2, writer);
  }, 300_000);
});
