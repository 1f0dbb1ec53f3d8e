// tsdb-storage as a process: per-tenant data and statistics, RPC metrics, the operational and
// admin endpoints it shares with tsdb, durability of acknowledged writes across SIGKILL, and the
// restore-in-progress guard.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label, MetricRow, SearchQuery, Tenant } from '../../src/lib/storageapi/index.ts';
import { NodeUnavailableError } from '../../src/lib/storageapi/index.ts';
import { startProcess } from '../e2e/process-harness.ts';
import { killAll, makeTempDir, removeTempDirs, track } from '../tsdb/harness.ts';
import { clientsOf, STORAGE_BINARY, startStorageNode, type NodeClients, type StorageNode } from './harness.ts';

const never = () => new AbortController().signal;
const ls = (o: Record<string, string>): Label[] => Object.keys(o).sort().map((name) => ({ name, value: o[name]! }));
const NOW = Date.now();
const A: Tenant = { accountID: 7, projectID: 3 };
const B: Tenant = { accountID: 8, projectID: 0 };
const all = (tenant: Tenant): SearchQuery => ({ tenant, matcherSets: [[{ name: '__name__', type: '=~', value: '.+' }]], timeRange: { minTimestamp: NOW - 3_600_000, maxTimestamp: NOW + 60_000 }, maxSeries: 0 });
const rows = (n: number, job: string): MetricRow[] =>
  Array.from({ length: n }, (_, i) => ({ labels: ls({ __name__: 'requests_total', job, instance: `i${i}` }), timestamp: NOW - 60_000, value: i }));

async function series(c: NodeClients, tenant: Tenant): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for await (const s of c.select.searchSeries(all(tenant), never())) out[s.labels.map((l) => `${l.name}=${l.value}`).join(',')] = Array.from(s.values);
  return out;
}

function metric(text: string, line: string): number | undefined {
  const l = text.split('\n').find((x) => x.startsWith(`${line} `));
  return l === undefined ? undefined : Number(l.slice(line.length + 1));
}

afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

describe('tsdb-storage', () => {
  let node: StorageNode;
  let clients: NodeClients;
  beforeAll(async () => {
    node = await startStorageNode(await makeTempDir('storage-node'));
    clients = clientsOf(node);
    await clients.insert.addRows(A, rows(2, 'a'));
    await clients.insert.addRows(B, rows(5, 'b'));
  });
  afterAll(async () => {
    await clients?.close();
  });

  it('keeps tenants apart and lists them', async () => {
    expect(Object.keys(await series(clients, A))).toHaveLength(2);
    expect(Object.keys(await series(clients, B))).toHaveLength(5);
    expect(await clients.select.listTenants(all(A).timeRange, never())).toEqual([A, B]);
  });

  it('exports per-tenant statistics and RPC metrics on /metrics', async () => {
    const text = await (await fetch(`${node.base}/metrics`)).text();
    expect(metric(text, 'tsdb_tenant_active_timeseries{accountID="7",projectID="3"}')).toBe(2);
    expect(metric(text, 'tsdb_tenant_timeseries_created_total{accountID="8",projectID="0"}')).toBe(5);
    expect(metric(text, 'tsdb_rpc_requests_total{service="insert",method="addRows"}')).toBe(2);
    expect(metric(text, 'tsdb_rpc_requests_total{service="select",method="searchSeries"}')).toBeGreaterThanOrEqual(2);
    expect(metric(text, 'tsdb_rpc_received_bytes_total{service="insert"}')).toBeGreaterThan(100);
    expect(metric(text, 'tsdb_rpc_sent_bytes_total{service="select"}')).toBeGreaterThan(100);
    expect(metric(text, 'tsdb_rpc_connections{service="select"}')).toBe(1);
    expect(text).toMatch(/^tsdb_rpc_request_duration_seconds_count\{service="insert",method="addRows"\} 2$/m);
  });

  it('serves /health, /flags, force_flush and the snapshot API like tsdb', async () => {
    expect(await (await fetch(`${node.base}/health`)).text()).toBe('OK');
    expect(await (await fetch(`${node.base}/flags`)).text()).toMatch(/-insertAddr="127\.0\.0\.1:0"/);
    expect((await fetch(`${node.base}/internal/force_flush`)).status).toBe(200);
    const created = (await (await fetch(`${node.base}/snapshot/create`, { method: 'POST' })).json()) as { status: string; snapshot: string };
    expect(created.status).toBe('ok');
    const list = (await (await fetch(`${node.base}/snapshot/list`)).json()) as { snapshots: string[] };
    expect(list.snapshots).toContain(created.snapshot);
  });

  it('answers a bad tenant, a bad regexp and a limit with the storage errors', async () => {
    const bad = { ...all(A), matcherSets: [[{ name: 'job', type: '=~' as const, value: '(' }]] };
    await expect(clients.select.labelNames(bad, 0, never())).rejects.toThrow(/invalid regexp/);
    await expect(clients.select.searchLabelSets({ ...all(B), maxSeries: 2 }, 0, never())).rejects.toMatchObject({ flag: 'search.maxUniqueTimeseries' });
  });
});

describe('tsdb-storage durability and lifecycle', () => {
  it('keeps acknowledged rows through SIGKILL', async () => {
    const dir = await makeTempDir('storage-kill');
    const node = await startStorageNode(dir);
    const c = clientsOf(node);
    await c.insert.addRows(A, rows(50, 'k'));
    expect(await node.kill()).toBe('SIGKILL');
    // the clients see the node go away
    await expect(c.select.seriesCount(A, never())).rejects.toBeInstanceOf(NodeUnavailableError);
    await c.close();
    const again = await startStorageNode(dir);
    const c2 = clientsOf(again);
    try {
      const got = await series(c2, A);
      expect(Object.keys(got)).toHaveLength(50);
      expect(got['__name__=requests_total,instance=i49,job=k']).toEqual([49]);
    } finally {
      await c2.close();
      expect(await again.stop()).toBe(0);
    }
  });

  it('refuses to start while a restore is in progress', async () => {
    const dir = await makeTempDir('storage-restoring');
    await writeFile(join(dir, 'restore-in-progress'), '');
    const p = track(startProcess(STORAGE_BINARY, [`-storageDataPath=${dir}`, '-httpListenAddr=127.0.0.1:0', '-insertAddr=127.0.0.1:0', '-selectAddr=127.0.0.1:0']));
    expect(await p.exited).toBe(1);
    expect(p.output()).toMatch(/a restore is in progress \(file "restore-in-progress" exists\)/);
  });
});
