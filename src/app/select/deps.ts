import { type Logger } from '../../lib/logger/index.ts';
import { type StorageApi, type Tenant } from '../../lib/storageapi/index.ts';
import { type ConcurrencyLimiter } from './concurrency.ts';
import { type SelectLimits } from './flags.ts';
import { type RollupResultCache } from './rollup-cache.ts';

/** SelectDeps are what the read routes need; tests build them directly, the binary from flags. */
export interface SelectDeps {
  /** storage is read (and, for delete_series, written) through storageapi only. */
  readonly storage: StorageApi;
  readonly tenant: Tenant;
  readonly limits: SelectLimits;
  readonly limiter: ConcurrencyLimiter;
  readonly cache: RollupResultCache;
  readonly logger: Logger;
  readonly now: () => number;
}
