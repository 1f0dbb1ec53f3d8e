// Running the `tsdb-storage` binary in process-level tests: start it on 127.0.0.1 with port 0 for
// HTTP and both RPC ports, learn the bound addresses from its log, talk to it through the
// storagerpc clients. Processes are registered with test/tsdb's killAll (call it in afterAll).

import { startProcess, type StartedProcess } from '../e2e/process-harness.ts';
import { track } from '../tsdb/harness.ts';
import type { Inserter, StorageApi, TenantLister } from '../../src/lib/storageapi/index.ts';
import { InsertNodeClient, SelectNodeClient } from '../../src/lib/storagerpc/index.ts';
import { networkApi } from '../../src/lib/storagerpc/testing.ts';

export const STORAGE_BINARY = 'src/cmd/tsdb-storage.ts';

/** StorageNode is a running tsdb-storage. */
export interface StorageNode {
  readonly proc: StartedProcess;
  /** base is `http://127.0.0.1:<port>`. */
  readonly base: string;
  readonly insertAddr: string;
  readonly selectAddr: string;
  readonly dataDir: string;
  /** stop sends SIGTERM and resolves with the exit status. */
  stop(): Promise<number | string>;
  /** kill sends SIGKILL and resolves once the process is gone. */
  kill(): Promise<number | string>;
}

/** startStorageNode starts tsdb-storage on dataDir with extra args and waits until all three ports listen. */
export async function startStorageNode(dataDir: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<StorageNode> {
  const proc = track(startProcess(STORAGE_BINARY, [
    '-httpListenAddr=127.0.0.1:0', '-insertAddr=127.0.0.1:0', '-selectAddr=127.0.0.1:0', `-storageDataPath=${dataDir}`, '-loggerDisableTimestamps', ...args,
  ], env));
  const http = await proc.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  const out = proc.output();
  const insert = /insert RPC listening on (\S+)/.exec(out);
  const select = /select RPC listening on (\S+)/.exec(out);
  if (insert === null || select === null) throw new Error(`tsdb-storage did not log its RPC addresses:\n${out}`);
  const signal = (sig: NodeJS.Signals) => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.kill(sig);
    return proc.exited;
  };
  return { proc, base: http[1]!, insertAddr: insert[1]!, selectAddr: select[1]!, dataDir, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

/** NodeClients are the two network clients of one storage node, and the storageapi they make together. */
export interface NodeClients {
  readonly insert: InsertNodeClient;
  readonly select: SelectNodeClient;
  readonly api: StorageApi & Inserter & TenantLister;
  close(): Promise<void>;
}

export function clientsOf(node: StorageNode): NodeClients {
  const insert = new InsertNodeClient({ address: node.insertAddr });
  const select = new SelectNodeClient({ address: node.selectAddr });
  return {
    insert, select, api: networkApi(insert, select),
    close: async () => {
      await insert.close();
      await select.close();
    },
  };
}
