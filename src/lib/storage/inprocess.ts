import type { Inserter, StorageApi, TenantLister } from '../storageapi/api.ts';
import type { StorageOptions } from './options.ts';
import { openStorage, type Storage } from './storage.ts';

/**
 * InProcessStorageApi is the single-node binding of the storageapi contract: the storage engine
 * itself, running in this process, seen through the contract the query side depends on. `storage`
 * gives the app the engine-only operations (flush, merge, snapshots, stats, close). It lives with
 * the engine, not with the contract: storageapi imports nothing of the storage side.
 */
export interface InProcessStorageApi {
  readonly api: StorageApi & Inserter & TenantLister;
  readonly storage: Storage;
}

/** openInProcessStorageApi opens the storage engine at opts.dataPath and binds it to the contract. */
export async function openInProcessStorageApi(opts: StorageOptions): Promise<InProcessStorageApi> {
  const storage = await openStorage(opts);
  const api: StorageApi & Inserter & TenantLister = storage;
  return { api, storage };
}
