import { parseNodeAddress, parseNodeAddresses } from '../../../lib/cluster/index.ts';
import { arrayFlag, durationFlag, intFlag, valueFlag } from '../../../lib/flags/index.ts';
import { formatTenant, parseTenant, type Tenant } from '../../../lib/storageapi/index.ts';

/** INSERT_RPC_PORT is the storage nodes' insert port, added to -storageNode entries without one. */
export const INSERT_RPC_PORT = 8400;

const storageNode = arrayFlag('storageNode', `Addresses of the storage nodes' insert port (host:port; port ${INSERT_RPC_PORT} when left out), comma-separated or repeated: -storageNode=s1:${INSERT_RPC_PORT},s2:${INSERT_RPC_PORT}. Series are spread over them by a consistent hash`, {
  required: true,
  validate: (s) => void parseNodeAddress(s, INSERT_RPC_PORT),
});
const replicationFactor = intFlag('replicationFactor', 1, 'Copies of every row written, to that many distinct storage nodes; a write is acknowledged once each copy is stored (by every node alive when fewer are). Give tsdb-select the same value');
const storageNodeTimeout = durationFlag('storageNode.timeout', '10s', 'How long a storage node may take to acknowledge a batch of rows; a node that fails or takes longer leaves rotation, its rows go to the next nodes of their series, and it is re-checked in the background from 1s to 10s later');
const defaultTenantID = valueFlag('defaultTenantID', '0:0', 'Tenant (accountID or accountID:projectID) that rows from -graphiteListenAddr, -opentsdbListenAddr and -opentsdbHTTPListenAddr are written to; HTTP routes name theirs in the path (/insert/<tenant>/…)', parseTenant, formatTenant);

/** ClusterInsertConfig is what the insert node needs to know about the cluster. */
export interface ClusterInsertConfig {
  readonly nodes: readonly string[];
  readonly replicationFactor: number;
  readonly timeoutMs: number;
  readonly receiversTenant: Tenant;
}

/** clusterInsertConfigFromFlags reads the cluster flags; throws an Error for values that do not fit together. */
export function clusterInsertConfigFromFlags(): ClusterInsertConfig {
  const nodes = parseNodeAddresses(storageNode.value, INSERT_RPC_PORT);
  const rf = replicationFactor.value;
  if (rf < 1) throw new Error(`-replicationFactor must be 1 or more; got ${rf}`);
  if (rf > nodes.length) throw new Error(`-replicationFactor=${rf} needs at least ${rf} storage nodes; -storageNode lists ${nodes.length}`);
  if (storageNodeTimeout.value <= 0) throw new Error('-storageNode.timeout must be positive');
  return { nodes, replicationFactor: rf, timeoutMs: storageNodeTimeout.value, receiversTenant: defaultTenantID.value };
}
