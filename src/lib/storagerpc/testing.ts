// Test helper: one storageapi object over a storage node's two clients, as the contract suite
// wants it (writes through the insert client, everything else through the select client).

import type { Inserter, StorageApi, TenantLister } from '../storageapi/api.ts';

export function networkApi(insert: Inserter, select: StorageApi & TenantLister): StorageApi & Inserter & TenantLister {
  return {
    addRows: (tenant, rows) => insert.addRows(tenant, rows),
    searchSeries: (q, signal) => select.searchSeries(q, signal),
    searchLabelSets: (q, limit, signal) => select.searchLabelSets(q, limit, signal),
    labelNames: (q, limit, signal) => select.labelNames(q, limit, signal),
    labelValues: (q, name, limit, signal) => select.labelValues(q, name, limit, signal),
    seriesCount: (tenant, signal) => select.seriesCount(tenant, signal),
    tsdbStatus: (q, signal) => select.tsdbStatus(q, signal),
    deleteSeries: (q, signal) => select.deleteSeries(q, signal),
    listTenants: (range, signal) => select.listTenants(range, signal),
  };
}
