// The backup manager against a storage node exactly as against the single node: it snapshots a
// running tsdb-storage through the node's HTTP port, uploads to fs://, and restores into a fresh
// node's data directory (restore mark, restore command, start the node); the restored node
// serves the same data through SelectNodeClient. While a node holds a data directory, restoring
// into it is refused.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteFs, createRestoreMark } from '../../src/lib/backup/index.ts';
import type { Label, MetricRow, SearchQuery, Tenant } from '../../src/lib/storageapi/index.ts';
import { killStarted, runCommand, startBackupManager, type RunningBackupManager } from '../backupmanager/harness.ts';
import { killAll, makeTempDir, removeTempDirs } from '../tsdb/harness.ts';
import { clientsOf, startStorageNode, type NodeClients, type StorageNode } from './harness.ts';

const never = () => new AbortController().signal;
const ls = (o: Record<string, string>): Label[] => Object.keys(o).sort().map((name) => ({ name, value: o[name]! }));
const NOW = Date.now();
const TENANTS: Tenant[] = [{ accountID: 0, projectID: 0 }, { accountID: 12, projectID: 34 }];
const query = (tenant: Tenant): SearchQuery => ({ tenant, matcherSets: [[{ name: '__name__', type: '=~', value: '.+' }]], timeRange: { minTimestamp: NOW - 7_200_000, maxTimestamp: NOW }, maxSeries: 0 });

function samples(tenantIndex: number): MetricRow[] {
  const out: MetricRow[] = [];
  for (let s = 0; s < 40; s++) {
    for (let p = 0; p < 60; p++) out.push({ labels: ls({ __name__: 'node_load', host: `h${s}`, tenant: String(tenantIndex) }), timestamp: NOW - 3_600_000 + p * 60_000, value: s * 100 + p + tenantIndex / 10 });
  }
  return out;
}

/** dump reads everything a node holds for the test tenants, in a comparable form. */
async function dump(c: NodeClients): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of TENANTS) {
    for await (const s of c.select.searchSeries(query(t), never())) {
      out[`${t.accountID}:${t.projectID}/${s.labels.map((l) => `${l.name}=${l.value}`).join(',')}`] = `${Array.from(s.timestamps).join(',')}|${Array.from(s.values).join(',')}`;
    }
  }
  return out;
}

let tmp: string;
let node: StorageNode;
let clients: NodeClients;
let bm: RunningBackupManager;
let dst: string;
let before: Record<string, string>;
beforeAll(async () => {
  tmp = await makeTempDir('storage-backup');
  dst = `fs://${join(tmp, 'dst')}`;
  node = await startStorageNode(join(tmp, 'node-data'));
  clients = clientsOf(node);
  for (const [i, t] of TENANTS.entries()) await clients.insert.addRows(t, samples(i));
  before = await dump(clients);
  bm = await startBackupManager([`-dst=${dst}`, `-storageDataPath=${node.dataDir}`, `-snapshot.createURL=${node.base}/snapshot/create`, '-runOnStart']);
  await bm.proc.waitForOutput(/backup run (finished in|failed)/, 60_000);
});
afterAll(async () => {
  await clients?.close();
  await killStarted();
  await killAll();
  await removeTempDirs();
});

describe('backup manager with tsdb-storage', () => {
  it('backs up the running node through its snapshot API', async () => {
    expect(bm.proc.output()).not.toMatch(/backup run failed/);
    expect(Object.keys(before)).toHaveLength(80);
    const remote = await createRemoteFs(dst);
    try {
      const files = await remote.list('latest');
      expect(files.some((f) => f.path.startsWith('latest/data/'))).toBe(true);
      expect(files.some((f) => f.path.startsWith('latest/indexdb/'))).toBe(true);
      expect(files.some((f) => f.path === 'latest/backup_complete.ignore')).toBe(true);
    } finally {
      await remote.close();
    }
    // the snapshot was deleted after the upload
    const list = (await (await fetch(`${node.base}/snapshot/list`)).json()) as { snapshots: string[] };
    expect(list.snapshots).toEqual([]);
  });

  it('refuses to restore into the data directory of a running node', async () => {
    const remote = await createRemoteFs(dst);
    await createRestoreMark({ dataDir: node.dataDir, backup: 'latest', dst: remote, openRemote: (u) => createRemoteFs(u) });
    await remote.close();
    const refused = await runCommand([`-storageDataPath=${node.dataDir}`, 'restore']);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/a storage process holds it; stop the storage first/)]);
    expect(await dump(clients)).toEqual(before);
    expect((await runCommand([`-apiURL=${bm.base}`, 'restore', 'delete'])).code).toBe(0);
  });

  it('restores into a fresh node: it serves exactly the backed-up data through SelectNodeClient', async () => {
    const fresh = join(tmp, 'fresh-data');
    const remote = await createRemoteFs(dst);
    await createRestoreMark({ dataDir: fresh, backup: 'latest', dst: remote, openRemote: (u) => createRemoteFs(u) });
    await remote.close();
    const res = await runCommand([`-storageDataPath=${fresh}`, 'restore']);
    expect([res.code, res.stderr]).toEqual([0, expect.stringMatching(/restored \S+\/latest into/)]);
    const restored = await startStorageNode(fresh);
    const c = clientsOf(restored);
    try {
      expect(await dump(c)).toEqual(before);
      expect(await c.select.listTenants(query(TENANTS[0]!).timeRange, never())).toEqual(TENANTS);
    } finally {
      await c.close();
      expect(await restored.stop()).toBe(0);
    }
  });
});
