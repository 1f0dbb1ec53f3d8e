import { realDelay, type Delay, type Now } from '../clock.ts';
import type { OnProgress } from '../progress.ts';
import { TokenBucket } from '../throttle.ts';

/** DEFAULT_CONCURRENCY is the default number of workers (SPEC `-concurrency`). */
export const DEFAULT_CONCURRENCY = 10;

/** TransferOptions are shared by the actions that move data. */
export interface TransferOptions {
  /** concurrency is the number of parallel workers; default 10. */
  readonly concurrency?: number | undefined;
  /** maxBytesPerSecond caps the transfer rate over all workers; 0 or absent = unlimited. */
  readonly maxBytesPerSecond?: number | undefined;
  /** now is the clock (ms); default Date.now. */
  readonly now?: Now | undefined;
  /** delay waits for the throttle; default real timers. */
  readonly delay?: Delay | undefined;
  readonly onProgress?: OnProgress | undefined;
  /** progressIntervalMs is the minimum time between progress reports; default 1000. */
  readonly progressIntervalMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** ResolvedTransfer holds TransferOptions with defaults applied. */
export interface ResolvedTransfer {
  readonly concurrency: number;
  readonly bucket: TokenBucket | undefined;
  readonly now: Now;
  readonly signal: AbortSignal | undefined;
}

/** resolveTransfer applies defaults and validates; it throws RangeError for bad numbers. */
export function resolveTransfer(opts: TransferOptions): ResolvedTransfer {
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const rate = opts.maxBytesPerSecond ?? 0;
  if (!Number.isFinite(rate) || rate < 0) throw new RangeError(`maxBytesPerSecond must be ≥ 0, got ${rate}`);
  const now = opts.now ?? Date.now;
  const bucket = rate > 0 ? new TokenBucket({ bytesPerSecond: rate, now, delay: opts.delay ?? realDelay }) : undefined;
  return { concurrency, bucket, now, signal: opts.signal };
}
