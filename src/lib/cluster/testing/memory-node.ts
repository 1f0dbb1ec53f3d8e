import { MemorySearcher } from '../../query/index.ts';
import { type Inserter, type MetricRow, type Tenant, type TenantLister, type TimeRange } from '../../storageapi/index.ts';

/**
 * MemoryNode is a storage node held in memory for tests: a MemorySearcher that also takes writes
 * (each row one sample) and lists the tenants it holds rows of (the time range is not consulted).
 */
export class MemoryNode extends MemorySearcher implements Inserter, TenantLister {
  /** rows counts every row written to this node. */
  rows = 0;
  readonly #tenants = new Map<string, Tenant>();

  async addRows(tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    for (const r of rows) this.add(tenant, r.labels, r.timestamp, r.value);
    this.rows += rows.length;
    if (rows.length > 0) this.#tenants.set(`${tenant.accountID}:${tenant.projectID}`, { accountID: tenant.accountID, projectID: tenant.projectID });
  }

  async listTenants(_range: TimeRange, signal: AbortSignal): Promise<Tenant[]> {
    signal.throwIfAborted();
    return [...this.#tenants.values()];
  }
}
