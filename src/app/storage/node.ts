// The cluster storage node's RPC side (tsdb-storage only; kept out of index.ts so the single-node
// tsdb does not grow these flags): the insert and select ports tsdb-insert and tsdb-select dial.

import { stringFlag } from '../../lib/flags/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import type { Storage } from '../../lib/storage/index.ts';
import { type RpcServer, serveInsertRpc, serveSelectRpc } from '../../lib/storagerpc/index.ts';

const insertAddr = stringFlag('insertAddr', ':8400', 'TCP address to accept connections from tsdb-insert nodes on (the storage node RPC insert port), e.g. ":8400"; IPv6 needs -enableTCP6');
const selectAddr = stringFlag('selectAddr', ':8401', 'TCP address to accept connections from tsdb-select nodes on (the storage node RPC select port), e.g. ":8401"; IPv6 needs -enableTCP6');

/** StorageNodeRpc is the running insert and select RPC servers of a storage node. */
export interface StorageNodeRpc {
  readonly insertAddress: string;
  readonly selectAddress: string;
  /** close stops both: no new calls; running searches are cancelled, running writes finish and are answered. */
  close(): Promise<void>;
}

/** startStorageNodeRpc serves storage on -insertAddr and -selectAddr. */
export async function startStorageNodeRpc(storage: Storage, logger: Logger, enableTCP6: boolean): Promise<StorageNodeRpc> {
  const opts = { enableTCP6, logger };
  const insert = await serveInsertRpc(storage, insertAddr.value, opts);
  let select: RpcServer;
  try {
    select = await serveSelectRpc(storage, selectAddr.value, opts);
  } catch (err) {
    await insert.close();
    throw err;
  }
  return {
    insertAddress: insert.address,
    selectAddress: select.address,
    close: async () => void (await Promise.all([insert.close(), select.close()])),
  };
}
