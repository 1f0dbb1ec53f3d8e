// Cluster-to-cluster restore (SPEC C; issue 19): a two-node cluster is backed up by one backup
// manager per storage node, each to its own folder of the first cluster's destination. A second
// two-node cluster, whose backup managers have a -dst of their own, gets on each node a restore
// mark naming its counterpart's backup by full storage URL (through the backup manager's API, as
// an operator would with `backupmanager restore create <URL>`); the restore command then fills the
// stopped node's data directory. Both clusters must then answer the same through tsdb-select.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killStarted, runCommand, startBackupManager } from '../backupmanager/harness.ts';
import { killAll, makeTempDir, removeTempDirs } from '../tsdb/harness.ts';
import { type Server, startInsert, startSelect, startStorage, startStorageOn, type StorageNode } from './harness.ts';

const TENANTS = ['0', '5:7'];
const NOW = Math.floor(Date.now() / 60_000) * 60_000;

let tmp: string;
let first: StorageNode[];
let firstSelect: Server;

/** exported reads every series of a tenant through tsdb-select as sorted JSON lines. */
async function exported(select: Server, tenant: string): Promise<string[]> {
  const url = `${select.base}/select/${tenant}/prometheus/api/v1/export?match[]=${encodeURIComponent('{__name__=~".+"}')}&start=${(NOW - 7_200_000) / 1000}&end=${NOW / 1000}`;
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type') ?? '').not.toMatch(/partial/);
  return (await res.text()).split('\n').filter((l) => l !== '').sort();
}

beforeAll(async () => {
  tmp = await makeTempDir('cluster-restore');
  first = await Promise.all([startStorage(), startStorage()]);
  const insert = await startInsert(first, ['-replicationFactor=1']);
  firstSelect = await startSelect(first, ['-replicationFactor=1']);
  for (const [t, tenant] of TENANTS.entries()) {
    const lines: string[] = [];
    for (let s = 0; s < 30; s++) {
      for (let p = 0; p < 60; p++) lines.push(`disk_used{host="h${s}",tenant="${t}"} ${s * 1000 + p * 3 + t} ${NOW - 3_600_000 + p * 60_000}`);
    }
    const res = await fetch(`${insert.base}/insert/${tenant}/prometheus/api/v1/import/prometheus`, { method: 'POST', body: lines.join('\n') });
    expect(res.status).toBe(204);
  }
  for (const n of first) expect((await fetch(`${n.http}/internal/force_flush`)).status).toBe(200);
}, 300_000);

afterAll(async () => {
  await killStarted();
  await killAll();
  await removeTempDirs();
});

describe('cluster-to-cluster restore', () => {
  it('restores each node of a second cluster from its counterpart, and both clusters answer the same', async () => {
    const firstDst = (i: number) => `fs://${join(tmp, 'first-backups', `storage-${i}`)}`;
    // Back up each node of the first cluster (one backup manager per node, as the operator's sidecars).
    for (const [i, n] of first.entries()) {
      const bm = await startBackupManager([`-dst=${firstDst(i)}`, `-storageDataPath=${n.dataDir}`, `-snapshot.createURL=${n.http}/snapshot/create`, '-runOnStart']);
      const [line] = await bm.proc.waitForOutput(/backup run (finished in|failed)[^\n]*/, 120_000);
      expect(line).toMatch(/finished in/);
      expect(await bm.stop()).toBe(0);
    }
    // Every series of both tenants is in the first cluster, each on one of the two nodes.
    const want = await Promise.all(TENANTS.map((t) => exported(firstSelect, t)));
    expect(want.map((w) => w.length)).toEqual([30, 30]);

    // The second cluster: each node's backup manager has its own -dst; the mark names the counterpart's backup.
    const second: string[] = [];
    for (let i = 0; i < first.length; i++) {
      // As in a Pod: the empty node runs with its sidecar, the mark is made through the sidecar's API,
      // then the Pod restarts and its init container (`backupmanager restore`) restores before the node starts.
      const empty = await startStorage();
      const bm = await startBackupManager([`-dst=fs://${join(tmp, 'second-backups', `storage-${i}`)}`, `-storageDataPath=${empty.dataDir}`, `-snapshot.createURL=${empty.http}/snapshot/create`]);
      const marked = await runCommand([`-apiURL=${bm.base}`, 'restore', 'create', `${firstDst(i)}/latest`]);
      expect([marked.code, marked.stderr]).toEqual([0, expect.not.stringMatching(/error|fatal/i)]);
      expect(await bm.stop()).toBe(0);
      empty.proc.kill('SIGTERM');
      expect(await empty.proc.exited).toBe(0);
      const dataDir = empty.dataDir;
      const restored = await runCommand([`-storageDataPath=${dataDir}`, 'restore']);
      expect([restored.code, restored.stderr]).toEqual([0, expect.stringContaining(`restored ${firstDst(i)}/latest into`)]);
      second.push(dataDir);
    }
    const secondNodes = await Promise.all(second.map((d) => startStorageOn(d)));
    const secondSelect = await startSelect(secondNodes, ['-replicationFactor=1']);
    expect(await Promise.all(TENANTS.map((t) => exported(secondSelect, t)))).toEqual(want);
    const tenants = await (await fetch(`${secondSelect.base}/admin/tenants`)).json() as { data: string[] };
    expect(tenants.data.sort()).toEqual(['0:0', '5:7']);
  }, 300_000);
});
