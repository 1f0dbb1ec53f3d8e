// Package cluster: what the cluster's insert and select nodes share about talking to storage
// nodes — rotation state with back-off, calls bounded in time whatever the peer does, node
// addresses, and per-node metrics.
export { callNode, iterateNode, REAL_TIMERS, type Timers } from './call.ts';
export { DEFAULT_HEALTH_POLICY, NodeHealth, type HealthPolicy } from './health.ts';
export { exportNodeStates, type NodeState } from './metrics.ts';
export { parseNodeAddress, parseNodeAddresses } from './node-address.ts';
export { Rechecker, type RecheckerOptions } from './recheck.ts';
export { NodeRotation, type NodeRotationOptions } from './rotation.ts';
export {
  startClusterNode, StorageNodeClients, type ClusterNode, type ClusterNodeConfig, type ClusterNodeOptions, type Coordinator, type CoordinatorContext, type NodeClient,
  type NodeCoordinator,
} from './node-clients.ts';
