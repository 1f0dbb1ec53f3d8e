// The local cluster of `npm run cluster` and `npm run stack`: two tsdb-storage nodes, one
// tsdb-insert and one tsdb-select with -replicationFactor=2, on fixed loopback ports.

import { join } from 'node:path';
import { HOST, type LocalProcesses } from './processes.ts';

export const STORAGE = [
  { name: 'storage-0', http: 8482, insert: 8400, select: 8401 },
  { name: 'storage-1', http: 8483, insert: 8402, select: 8403 },
] as const;
export const INSERT_HTTP = 8480;
export const SELECT_HTTP = 8481;
export const REPLICATION_FACTOR = 2;
/** STOP_ORDER: insert and select first, so no write is acknowledged by a storage node going away. */
export const CLUSTER_STOP_ORDER = [['insert', 'select'], ['storage']];

/**
 * startCluster starts the cluster's four processes under procs.root and waits for their /health.
 * extraArgs(name) adds flags to one process (for example -pushmetrics.*).
 */
export async function startCluster(procs: LocalProcesses, extraArgs: (name: string) => string[] = () => []): Promise<void> {
  const storages = STORAGE.map((s) => procs.start(s.name, 'tsdb-storage', s.http, [
    `-storageDataPath=${join(procs.root, s.name)}`, `-insertAddr=${HOST}:${s.insert}`, `-selectAddr=${HOST}:${s.select}`, ...extraArgs(s.name),
  ]));
  await Promise.all(storages.map((p) => procs.healthy(p)));
  const insert = procs.start('insert', 'tsdb-insert', INSERT_HTTP, [
    `-storageNode=${STORAGE.map((s) => `${HOST}:${s.insert}`).join(',')}`, `-replicationFactor=${REPLICATION_FACTOR}`, ...extraArgs('insert'),
  ]);
  const select = procs.start('select', 'tsdb-select', SELECT_HTTP, [
    `-storageNode=${STORAGE.map((s) => `${HOST}:${s.select}`).join(',')}`, `-replicationFactor=${REPLICATION_FACTOR}`, ...extraArgs('select'),
  ]);
  await Promise.all([procs.healthy(insert), procs.healthy(select)]);
}

/** clusterSummary is the URL list `npm run cluster` and `npm run stack` print. */
export function clusterSummary(): string {
  const ins = `http://localhost:${INSERT_HTTP}`;
  const sel = `http://localhost:${SELECT_HTTP}`;
  return `  storage nodes  ${STORAGE.map((s) => `http://localhost:${s.http}`).join(', ')} (insert RPC ${STORAGE.map((s) => s.insert).join(', ')}, select RPC ${STORAGE.map((s) => s.select).join(', ')})
  tsdb-insert    ${ins}/insert/<accountID[:projectID]>/…
  tsdb-select    ${sel}/select/<accountID[:projectID]>/prometheus/…  (Grafana: a Prometheus data source at ${sel}/select/0/prometheus)
`;
}
