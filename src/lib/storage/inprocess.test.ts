import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStorageApiContract } from '../storageapi/contract-suite.ts';
import { openInProcessStorageApi } from './inprocess.ts';

describeStorageApiContract('in-process storage', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-contract-'));
  const { api, storage } = await openInProcessStorageApi({ dataPath: dir, fsyncIntervalMs: -1, backgroundThreads: 0 });
  return {
    api,
    maxLabelsPerTimeseries: 30,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// The same contract holds once everything is flushed into parts and merged (by the default
// background worker thread).
describeStorageApiContract('in-process storage, data in merged parts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-contract-'));
  const { api, storage } = await openInProcessStorageApi({ dataPath: dir, fsyncIntervalMs: -1 });
  // Every write is followed by a flush and a full merge, so reads come from merged parts.
  const flushing: typeof api = {
    addRows: async (tenant, rows) => {
      try {
        await api.addRows(tenant, rows);
      } finally {
        await storage.forceMerge();
      }
    },
    searchSeries: (q, signal) => api.searchSeries(q, signal),
    searchLabelSets: (q, limit, signal) => api.searchLabelSets(q, limit, signal),
    labelNames: (q, limit, signal) => api.labelNames(q, limit, signal),
    labelValues: (q, name, limit, signal) => api.labelValues(q, name, limit, signal),
    seriesCount: (tenant, signal) => api.seriesCount(tenant, signal),
    tsdbStatus: (q, signal) => api.tsdbStatus(q, signal),
    listTenants: (range, signal) => api.listTenants(range, signal),
    deleteSeries: async (q, signal) => {
      const n = await api.deleteSeries(q, signal);
      await storage.forceMerge();
      return n;
    },
  };
  return {
    api: flushing,
    maxLabelsPerTimeseries: 30,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
