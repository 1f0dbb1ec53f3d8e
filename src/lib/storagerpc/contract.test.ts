// The storageapi contract through the network: InsertNodeClient and SelectNodeClient talking to
// serveInsertRpc/serveSelectRpc in front of a real storage engine in this process.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStorageApiContract, type ContractSubject } from '../storageapi/contract-suite.ts';
import { openInProcessStorageApi } from '../storage/inprocess.ts';
import { InsertNodeClient, SelectNodeClient, serveInsertRpc, serveSelectRpc } from './index.ts';
import { networkApi } from './testing.ts';

describeStorageApiContract('storage node RPC (in-process servers)', async (): Promise<ContractSubject> => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-rpc-contract-'));
  const { storage } = await openInProcessStorageApi({ dataPath: dir, fsyncIntervalMs: -1, backgroundThreads: 0 });
  const ins = await serveInsertRpc(storage, '127.0.0.1:0');
  const sel = await serveSelectRpc(storage, '127.0.0.1:0');
  const insert = new InsertNodeClient({ address: ins.address });
  const select = new SelectNodeClient({ address: sel.address });
  return {
    api: networkApi(insert, select),
    maxLabelsPerTimeseries: 30,
    close: async () => {
      await insert.close();
      await select.close();
      await ins.close();
      await sel.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
