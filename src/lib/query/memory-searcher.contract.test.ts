// The storageapi contract suite against the query side's in-memory storage.
import { describeStorageApiContract } from '../storageapi/contract-suite.ts';
import { MemorySearcher } from './memory-searcher.ts';

describeStorageApiContract('query MemorySearcher', async () => ({
  api: new MemorySearcher({ maxLabelsPerTimeseries: 30 }),
  maxLabelsPerTimeseries: 30,
  close: async () => {},
}));
