// The start of a cluster insert or select node and its storage-node clients: one per -storageNode
// address, closed together at shutdown after the router or fan-out over them has stopped.

import { flagValueOrExit, startRuntime, type Runtime, type RuntimeOptions } from '../process/index.ts';
import { exportNodeStates, type NodeState } from './metrics.ts';

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

/** NodeCoordinator is a Coordinator that reports each storage node's state for /metrics. */
export interface NodeCoordinator extends Coordinator {
  nodeStates(): readonly NodeState[];
}

/** CoordinatorContext is what a coordinator is built from: the clients, the config and a logger. */
export interface CoordinatorContext<Cfg, C> {
  readonly nodes: ReadonlyArray<{ readonly name: string; readonly client: C }>;
  readonly cfg: Cfg;
  /** logger is the cluster component's logger (component "cluster"). */
  readonly logger: Runtime['logger'];
}

/** ClusterNodeOptions describe a cluster insert or select binary's start. */
export interface ClusterNodeOptions<Cfg extends ClusterNodeConfig, C extends NodeClient, K extends NodeCoordinator> {
  readonly runtime: RuntimeOptions;
  /** configFromFlags reads the node's config; a rejected value ends the process like a bad flag. */
  readonly configFromFlags: () => Cfg;
  /** client makes the client of one storage node. */
  readonly client: (address: string, timeoutMs: number) => C;
  /** coordinator builds the router (insert) or fan-out (select) over the clients. */
  readonly coordinator: (ctx: CoordinatorContext<Cfg, C>) => K;
}

/** ClusterNode is a started cluster insert or select node, not yet listening. */
export interface ClusterNode<Cfg, C extends NodeClient, K> {
  readonly rt: Runtime;
  readonly cfg: Cfg;
  readonly clients: StorageNodeClients<C>;
  readonly coordinator: K;
}

/**
 * startClusterNode is the shared start of tsdb-insert and tsdb-select: the runtime (flags, logger,
 * metrics, HTTP server not yet listening), the node's config, one client per storage node and the
 * coordinator over them, whose node states it exports as tsdb_storage_node_up.
 */
export function startClusterNode<Cfg extends ClusterNodeConfig, C extends NodeClient, K extends NodeCoordinator>(
  o: ClusterNodeOptions<Cfg, C, K>,
): ClusterNode<Cfg, C, K> {
  const rt = startRuntime(o.runtime);
  const cfg = flagValueOrExit(rt.binary, o.configFromFlags);
  const clients = new StorageNodeClients(cfg.nodes, (address) => o.client(address, cfg.timeoutMs));
  const coordinator = o.coordinator({ nodes: clients.nodes, cfg, logger: rt.logger.child({ component: 'cluster' }) });
  exportNodeStates(() => coordinator.nodeStates());
  return { rt, cfg, clients, coordinator };
}
