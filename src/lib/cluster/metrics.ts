import { counter, gauge, summary } from '../metrics/index.ts';

const rpcDuration = summary('tsdb_storage_node_rpc_duration_seconds', 'Duration of calls to storage nodes, failed ones included, by node and operation', ['node', 'op']);
const rpcErrors = counter('tsdb_storage_node_rpc_errors_total', 'Calls to storage nodes that failed (unreachable, timed out or answering with an error), by node and operation', ['node', 'op']);

/** NodeCallObserver is told about every call to a storage node (the cluster cores take one). */
export interface NodeCallObserver {
  call(node: string, op: string, seconds: number, failed: boolean): void;
}

/** NODE_CALL_METRICS records calls in tsdb_storage_node_rpc_duration_seconds and tsdb_storage_node_rpc_errors_total. */
export const NODE_CALL_METRICS: NodeCallObserver = {
  call(node, op, seconds, failed) {
    rpcDuration.observe({ node, op }, seconds);
    if (failed) rpcErrors.inc({ node, op });
  },
};

/** NodeState is what tsdb_storage_node_up reads for one node at scrape time. */
export interface NodeState {
  readonly name: string;
  readonly up: boolean;
}

/** exportNodeStates declares tsdb_storage_node_up{node}, read from states() at every scrape. */
export function exportNodeStates(states: () => readonly NodeState[]): void {
  gauge('tsdb_storage_node_up', 'Whether a storage node is in rotation (1), or skipped after a failure until its next re-check (0)', ['node'], (g) => {
    g.reset();
    for (const s of states()) g.set({ node: s.name }, s.up ? 1 : 0);
  });
}
