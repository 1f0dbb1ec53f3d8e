import type { Logger } from '../../../lib/logger/index.ts';
import { counter } from '../../../lib/metrics/index.ts';
import type { Tenant } from '../../../lib/storageapi/index.ts';
import type { RouterObserver } from './router.ts';

const tenantRows = counter('tsdb_tenant_inserted_rows_total', 'Rows stored, by tenant and ingestion format (the gateway\'s rows_inserted limit reads it)', ['accountID', 'projectID', 'type']);
const rowsStored = counter('tsdb_storage_node_rows_stored_total', 'Rows a storage node acknowledged, replicas and background re-check copies included', ['node']);
const rowsRerouted = counter('tsdb_storage_node_rows_rerouted_total', 'Rows that rank a storage node among their replicas but went to other nodes, because it was out of rotation or failed', ['node']);

/** countTenantRows is InsertOptions.onInserted for the cluster: tsdb_tenant_inserted_rows_total. */
export function countTenantRows(tenant: Tenant, type: string, rows: number): void {
  tenantRows.inc({ accountID: String(tenant.accountID), projectID: String(tenant.projectID), type }, rows);
}

/** routerObserver records what the shard router does in metrics, and node state changes in the log. */
export function routerObserver(logger: Logger): RouterObserver {
  return {
    rowsStored: (node, n) => rowsStored.inc({ node }, n),
    rowsRerouted: (node, n) => rowsRerouted.inc({ node }, n),
    nodeDown: (node, err) => logger.warn({ err }, `storage node ${node} left rotation; its rows go to other nodes until a re-check succeeds`),
    nodeUp: (node) => logger.info(`storage node ${node} is back in rotation`),
  };
}
