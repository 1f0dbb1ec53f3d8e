// The storageapi contract suite (the one the single node's storage passes) run against the
// cluster's two halves together: rows written through the shard router, read through the fan-out,
// over two in-process storage engines. With replication factor 1 the series are split between the
// nodes and the merged view must answer exactly as one storage does.

import { describeStorageApiContract } from '../../src/lib/storageapi/contract-suite.ts';
import { type Inserter, type StorageApi, type TenantLister } from '../../src/lib/storageapi/index.ts';
import { openNodes } from './inprocess-nodes.ts';

describeStorageApiContract('cluster: shard router + fan-out over two in-process storages, factor 1', async () => {
  const c = await openNodes(2);
  const router = c.router(1);
  const reads = c.fanout(1).forRequest();
  const api: StorageApi & Inserter & TenantLister = {
    addRows: (tenant, rows) => router.addRows(tenant, rows),
    searchSeries: (q, signal) => reads.searchSeries(q, signal),
    searchLabelSets: (q, limit, signal) => reads.searchLabelSets(q, limit, signal),
    labelNames: (q, limit, signal) => reads.labelNames(q, limit, signal),
    labelValues: (q, name, limit, signal) => reads.labelValues(q, name, limit, signal),
    seriesCount: (tenant, signal) => reads.seriesCount(tenant, signal),
    tsdbStatus: (q, signal) => reads.tsdbStatus(q, signal),
    deleteSeries: (q, signal) => reads.deleteSeries(q, signal),
    listTenants: (range, signal) => reads.listTenants(range, signal),
  };
  return { api, maxLabelsPerTimeseries: 30, close: () => c.close() };
});
