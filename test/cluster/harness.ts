// Running the cluster binaries in process-level tests: tsdb-storage nodes (restartable on the same
// data directory and ports), tsdb-insert and tsdb-select on 127.0.0.1, their addresses learnt from
// their logs. Every process is registered with the tsdb harness's killAll.

import { startProcess, type StartedProcess } from '../e2e/process-harness.ts';
import { makeTempDir, track } from '../tsdb/harness.ts';

/** StorageNode is a tsdb-storage process that can be killed, frozen and started again on the same ports and data. */
export interface StorageNode {
  readonly dataDir: string;
  readonly http: string;
  readonly insertAddr: string;
  readonly selectAddr: string;
  readonly proc: StartedProcess;
  readonly pid: number;
}

function started(script: string, args: readonly string[]): StartedProcess {
  return track(startProcess(script, ['-loggerDisableTimestamps', ...args]));
}

async function storage(dataDir: string, http: string, ins: string, sel: string): Promise<StorageNode> {
  const proc = started('src/cmd/tsdb-storage.ts', [`-storageDataPath=${dataDir}`, `-httpListenAddr=${http}`, `-insertAddr=${ins}`, `-selectAddr=${sel}`, '-retentionPeriod=10y']);
  const [, insertAddr] = await proc.waitForOutput(/insert RPC listening on (\S+)/, 90_000);
  const [, selectAddr] = await proc.waitForOutput(/select RPC listening on (\S+)/, 90_000);
  const [, httpAddr] = await proc.waitForOutput(/listening on http:\/\/(\S+)/, 90_000);
  return { dataDir, http: `http://${httpAddr}`, insertAddr: insertAddr!, selectAddr: selectAddr!, proc, pid: proc.child.pid! };
}

/** startStorage starts a storage node on fresh ports and a fresh data directory. */
export async function startStorage(): Promise<StorageNode> {
  return startStorageOn(await makeTempDir('cluster-storage'));
}

/** startStorageOn starts a storage node on fresh ports and a given data directory (a restored one, say). */
export function startStorageOn(dataDir: string): Promise<StorageNode> {
  return storage(dataDir, '127.0.0.1:0', '127.0.0.1:0', '127.0.0.1:0');
}

/** restartStorage starts a node again on the data directory and ports of one that has exited. */
export async function restartStorage(old: StorageNode): Promise<StorageNode> {
  return storage(old.dataDir, old.http.replace('http://', ''), old.insertAddr, old.selectAddr);
}

/** Server is a tsdb-insert or tsdb-select process and its base URL. */
export interface Server {
  readonly proc: StartedProcess;
  readonly base: string;
}

async function server(script: string, args: readonly string[]): Promise<Server> {
  const proc = started(script, ['-httpListenAddr=127.0.0.1:0', ...args]);
  const [, addr] = await proc.waitForOutput(/listening on http:\/\/(\S+)/, 90_000);
  return { proc, base: `http://${addr}` };
}

/** startInsert starts tsdb-insert over the nodes' insert ports. */
export function startInsert(nodes: readonly StorageNode[], args: readonly string[] = []): Promise<Server> {
  return server('src/cmd/tsdb-insert.ts', [`-storageNode=${nodes.map((n) => n.insertAddr).join(',')}`, ...args]);
}

/** startSelect starts tsdb-select over the nodes' select ports. */
export function startSelect(nodes: readonly StorageNode[], args: readonly string[] = []): Promise<Server> {
  return server('src/cmd/tsdb-select.ts', [`-storageNode=${nodes.map((n) => n.selectAddr).join(',')}`, ...args]);
}

/** signal sends sig to a process and, for SIGKILL, resolves once it is gone. */
export async function signal(p: StartedProcess, sig: NodeJS.Signals): Promise<void> {
  p.kill(sig);
  if (sig === 'SIGKILL') await p.exited;
}
