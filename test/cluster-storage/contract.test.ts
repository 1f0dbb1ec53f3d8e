// The storageapi contract suite against the real tsdb-storage binary, through the network
// clients: a fresh process on a fresh data directory for every test.

import { afterAll } from 'vitest';
import { describeStorageApiContract } from '../../src/lib/storageapi/contract-suite.ts';
import { killAll, makeTempDir, removeTempDirs } from '../tsdb/harness.ts';
import { clientsOf, startStorageNode } from './harness.ts';

afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

describeStorageApiContract('tsdb-storage binary over the network', async () => {
  const node = await startStorageNode(await makeTempDir('storage-contract'));
  const clients = clientsOf(node);
  return {
    api: clients.api,
    maxLabelsPerTimeseries: 30,
    close: async () => {
      await clients.close();
      const code = await node.stop();
      if (code !== 0) throw new Error(`tsdb-storage exited with ${code}:\n${node.proc.output()}`);
    },
  };
});
