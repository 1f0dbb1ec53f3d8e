// Storage nodes for in-process cluster tests: real storage engines (openStorage through the
// storageapi in-process adapter) in temp directories, each behind a FaultyNode switch, with the
// insert side's ShardRouter and the select side's FanoutStorage over them.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The cluster packages' index files declare flags of the same names (-storageNode), each for its
// own binary: a test using both imports their modules directly.
import { ShardRouter } from '../../src/app/insert/cluster/router.ts';
import { FanoutStorage } from '../../src/app/select/cluster/fanout.ts';
import { FaultyNode, OK } from '../../src/lib/cluster/testing/faulty-node.ts';
import { openInProcessStorageApi, type Storage } from '../../src/lib/storage/index.ts';

export interface InProcessNodes {
  readonly nodes: FaultyNode[];
  readonly storages: Storage[];
  router(rf: number, timeoutMs?: number): ShardRouter;
  fanout(rf: number, o?: { deny?: boolean; timeoutMs?: number }): FanoutStorage;
  close(): Promise<void>;
}

/** openNodes opens n in-process storage nodes named s0:8400…; close() thaws, closes and deletes them. */
export async function openNodes(n: number): Promise<InProcessNodes> {
  const dirs: string[] = [];
  const storages: Storage[] = [];
  const nodes: FaultyNode[] = [];
  for (let i = 0; i < n; i++) {
    const dir = await mkdtemp(join(tmpdir(), 'strata-cluster-'));
    dirs.push(dir);
    const { api, storage } = await openInProcessStorageApi({ dataPath: dir, fsyncIntervalMs: -1, backgroundThreads: 0 });
    storages.push(storage);
    nodes.push(new FaultyNode(`s${i}:8400`, api));
  }
  const routers: ShardRouter[] = [];
  const fanouts: FanoutStorage[] = [];
  return {
    nodes,
    storages,
    router(rf, timeoutMs = 2000) {
      const r = new ShardRouter({ nodes: nodes.map((x) => ({ name: x.name, inserter: x })), replicationFactor: rf, writeTimeoutMs: timeoutMs, now: Date.now });
      routers.push(r);
      return r;
    },
    fanout(rf, o = {}) {
      const f = new FanoutStorage({
        nodes: nodes.map((x) => ({ name: x.name, api: x })), replicationFactor: rf, denyPartialResponse: o.deny ?? false,
        nodeTimeoutMs: o.timeoutMs ?? 2000, dedupMs: 0, now: Date.now,
      });
      fanouts.push(f);
      return f;
    },
    async close() {
      for (const r of [...routers, ...fanouts]) r.close();
      for (const x of nodes) x.setMode(OK);
      await Promise.all([...routers.map((r) => r.idle()), ...fanouts.map((f) => f.idle())]);
      await Promise.all(storages.map((s) => s.close()));
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}
