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
  /**
   * onLargeResponse, if given, is called after a response of at least LARGE_RESPONSE_BYTES or an
   * export stream has been written (the binary uses it to return the request's garbage to the OS
   * before the next one, instead of letting the heap ratchet up).
   */
  readonly onLargeResponse?: () => void;
}
