// The start of a cluster insert or select node and its storage-node clients: one per -storageNode
// address, closed together at shutdown after the router or fan-out over them has stopped.

import { flagValueOrExit, startRuntime, type Runtime, type RuntimeOptions } from '../process/index.ts';

/** NodeClient is what a storage-node client offers this module: closing its connections. */
export interface NodeClient {
  close(): Promise<void>;
}

/** Coordinator is the router or fan-out over the clients: it stops taking calls, then settles. */
export interface Coordinator {
  close(): void;
  idle(): Promise<void>;
}

/** StorageNodeClients holds one client per node address, named by the address. */
export class StorageNodeClients<C extends NodeClient> {
  readonly nodes: ReadonlyArray<{ readonly name: string; readonly client: C }>;

  constructor(addresses: readonly string[], make: (address: string) => C) {
    this.nodes = addresses.map((name) => ({ name, client: make(name) }));
  }

  /** close closes every client; calls in flight fail as their client's close says. */
  close = async (): Promise<void> => {
    await Promise.all(this.nodes.map((n) => n.client.close()));
  };

  /** shutdownStep is serveUntilSignal's step: stop the coordinator, let its calls settle, close the clients. */
  shutdownStep(coordinator: Coordinator): { readonly name: string; stop(): Promise<void> } {
    return {
      name: 'storage node clients',
      stop: async () => {
        coordinator.close();
        await coordinator.idle();
        await this.close();
      },
    };
  }
}

/** ClusterNodeConfig is what startClusterNode needs of a cluster node's config. */
export interface ClusterNodeConfig {
  /** nodes are the -storageNode addresses. */
  readonly nodes: readonly string[];
  readonly timeoutMs: number;
}

/** ClusterNodeOptions describe a cluster insert or select binary's start. */
export interface ClusterNodeOptions<Cfg extends ClusterNodeConfig, C extends NodeClient> {
  readonly runtime: RuntimeOptions;
  /** configFromFlags reads the node's config; a rejected value ends the process like a bad flag. */
  readonly configFromFlags: () => Cfg;
  /** client makes the client of one storage node. */
  readonly client: (address: string, timeoutMs: number) => C;
}

/**
 * startClusterNode is the shared start of tsdb-insert and tsdb-select: the runtime (flags, logger,
 * metrics, HTTP server not yet listening), the node's config and one client per storage node.
 */
export function startClusterNode<Cfg extends ClusterNodeConfig, C extends NodeClient>(o: ClusterNodeOptions<Cfg, C>): { rt: Runtime; cfg: Cfg; clients: StorageNodeClients<C> } {
  const rt = startRuntime(o.runtime);
  const cfg = flagValueOrExit(rt.binary, o.configFromFlags);
  return { rt, cfg, clients: new StorageNodeClients(cfg.nodes, (address) => o.client(address, cfg.timeoutMs)) };
}
