import { openStorage, type Storage, type StorageOptions } from '../storage/index.ts';
import type { Inserter, StorageApi, TenantLister } from './api.ts';

/**
 * InProcessStorageApi is the single-node binding of the storageapi contract: the storage engine
 * itself, running in this process, seen through the contract the query side depends on. `storage`
 * gives the app the engine-only operations (flush, merge, snapshots, stats, close).
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
