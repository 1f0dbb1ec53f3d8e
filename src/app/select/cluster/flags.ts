import { parseNodeAddress, parseNodeAddresses } from '../../../lib/cluster/index.ts';
import { arrayFlag, boolFlag, durationFlag, intFlag } from '../../../lib/flags/index.ts';

/** SELECT_RPC_PORT is the storage nodes' select port, added to -storageNode entries without one. */
export const SELECT_RPC_PORT = 8401;

const storageNode = arrayFlag('storageNode', `Addresses of the storage nodes' select port (host:port; port ${SELECT_RPC_PORT} when left out), comma-separated or repeated: -storageNode=s1:${SELECT_RPC_PORT},s2:${SELECT_RPC_PORT}. Every request reads from all of them`, {
  required: true,
  validate: (s) => void parseNodeAddress(s, SELECT_RPC_PORT),
});
const replicationFactor = intFlag('replicationFactor', 1, 'The -replicationFactor the insert nodes write with: an answer that lacks at most N-1 storage nodes is complete (isPartial false), since their data has copies on the others');
const denyPartialResponse = boolFlag('search.denyPartialResponse', false, 'Whether to answer 503, naming the storage nodes, instead of a partial answer ("isPartial": true) when more storage nodes are missing than -replicationFactor covers');
const storageNodeTimeout = durationFlag('storageNode.timeout', '10s', 'How long a storage node may take to answer a call, or to send the next series of a search; a node that fails to answer in time leaves rotation (its data counts as missing) and is re-checked in the background from 1s to 10s later');
const dedupMinScrapeInterval = durationFlag('dedup.minScrapeInterval', '0s', 'Keep one sample per series per this interval (the last one) in series merged from several storage nodes; 0 keeps every distinct timestamp. Samples with the same timestamp (replicas) always collapse into one');

/** ClusterSelectConfig is what the select node needs to know about the cluster. */
export interface ClusterSelectConfig {
  readonly nodes: readonly string[];
  readonly replicationFactor: number;
  readonly denyPartialResponse: boolean;
  readonly timeoutMs: number;
  readonly dedupMs: number;
}

/** clusterSelectConfigFromFlags reads the cluster flags; throws an Error for values that do not fit together. */
export function clusterSelectConfigFromFlags(): ClusterSelectConfig {
  const nodes = parseNodeAddresses(storageNode.value, SELECT_RPC_PORT);
  const rf = replicationFactor.value;
  if (rf < 1) throw new Error(`-replicationFactor must be 1 or more; got ${rf}`);
  if (rf > nodes.length) throw new Error(`-replicationFactor=${rf} needs at least ${rf} storage nodes; -storageNode lists ${nodes.length}`);
  if (storageNodeTimeout.value <= 0) throw new Error('-storageNode.timeout must be positive');
  return { nodes, replicationFactor: rf, denyPartialResponse: denyPartialResponse.value, timeoutMs: storageNodeTimeout.value, dedupMs: dedupMinScrapeInterval.value };
}
