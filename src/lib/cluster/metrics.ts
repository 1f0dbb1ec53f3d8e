// Calls to storage nodes (latency, errors by reason, bytes) are counted by the RPC client itself
// (storagerpc's tsdb_rpc_client_*); this is the rotation state the cluster cores add on top.

import { gauge } from '../metrics/index.ts';

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
