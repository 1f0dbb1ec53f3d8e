// What the cluster adds to the storage contract: listing tenants (select node's /admin/tenants)
// and the error a network client raises when a storage node cannot be reached in time.
//
// Declared here by the query/insert half of the cluster (h-cluster) so it can be coded against
// before the RPC client and server land (h-storage adds the same names): when both are merged,
// keep one declaration of each.

import type { Tenant, TimeRange } from './api.ts';

/** TenantLister lists the tenants that hold data in a time range (cluster storage nodes implement it). */
export interface TenantLister {
  /**
   * listTenants returns every tenant with at least one series (index entry) whose days overlap
   * range, in no particular order. An aborted call rejects with the signal's reason.
   */
  listTenants(range: TimeRange, signal: AbortSignal): Promise<Tenant[]>;
}

/**
 * NodeUnavailableError reports that a storage node could not be reached, or did not answer in
 * time: a network or timeout failure, not an answer. `node` is the node's address as configured.
 */
export class NodeUnavailableError extends Error {
  readonly node: string;
  constructor(node: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NodeUnavailableError';
    this.node = node;
  }
}
