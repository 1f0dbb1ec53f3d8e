import { silentLogger, type StorageLogger } from './common/logger.ts';
import { DEFAULT_MERGE_POLICY, type MergePolicy } from './common/merge-policy.ts';

/**
 * StorageOptions configure openStorage. Only dataPath is required. The app maps flags onto these
 * (-storageDataPath, -retentionPeriod, -dedup.minScrapeInterval, -maxLabelsPerTimeseries,
 * -maxLabelValueLen, -snapshotsMaxAge, memory budget shares); the engine itself reads no flag.
 */
export interface StorageOptions {
  /** dataPath is the data directory (created when missing). */
  readonly dataPath: string;
  /** retentionMs: data older than this is rejected on write and dropped; default 31 days. */
  readonly retentionMs?: number;
  /** minScrapeIntervalMs: keep one sample per interval per series (0 = off, the default). */
  readonly minScrapeIntervalMs?: number;
  /** maxLabelsPerTimeseries rejects series with more labels; default 30. */
  readonly maxLabelsPerTimeseries?: number;
  /** maxLabelValueLen rejects series with a longer label value or name; default 4096. */
  readonly maxLabelValueLen?: number;
  /** cacheBytes is the memory all caches may use together; default 256 MiB. */
  readonly cacheBytes?: number;
  /**
   * fsyncIntervalMs is the power-loss durability policy of the WAL: 0 = fsync before every
   * acknowledgement, N > 0 = every N ms (default 1000), negative = never.
   */
  readonly fsyncIntervalMs?: number;
  /** flushIntervalMs turns buffered rows into parts at least this often; default 2000. */
  readonly flushIntervalMs?: number;
  /** maxBufferedRows seals the buffer for a flush when it holds this many rows (20 bytes each); default 2^19. */
  readonly maxBufferedRows?: number;
  /** snapshotsMaxAgeMs deletes snapshots older than this (0 = keep, the default). */
  readonly snapshotsMaxAgeMs?: number;
  /** maintenanceIntervalMs is how often retention and snapshot age are checked; default 60 s. */
  readonly maintenanceIntervalMs?: number;
  /** backgroundMerges: merge small parts automatically (default true). */
  readonly backgroundMerges?: boolean;
  /**
   * backgroundThreads: flushes and merges run in a worker thread (1, the default) or on the
   * calling thread (0), where they share the event loop with ingestion and queries.
   */
  readonly backgroundThreads?: number;
  /** zstdLevel for parts written by merges (flushes use level 1); default 3. */
  readonly zstdLevel?: number;
  readonly mergePolicy?: MergePolicy;
  /** bigPartBytes: parts at least this big count as "big" in stats; default 16 MiB. */
  readonly bigPartBytes?: number;
  /** now returns the current time in ms; injected so retention and tests control the clock. */
  readonly now?: () => number;
  readonly logger?: StorageLogger;
}

/** ResolvedOptions are StorageOptions with every default applied. */
export type ResolvedOptions = Required<StorageOptions>;

const DAY = 86_400_000;

/** DEFAULTS are the documented default values. */
export const DEFAULTS = {
  retentionMs: 31 * DAY,
  minScrapeIntervalMs: 0,
  maxLabelsPerTimeseries: 30,
  maxLabelValueLen: 4096,
  cacheBytes: 256 * 2 ** 20,
  fsyncIntervalMs: 1000,
  flushIntervalMs: 2000,
  maxBufferedRows: 2 ** 19,
  snapshotsMaxAgeMs: 0,
  maintenanceIntervalMs: 60_000,
  backgroundMerges: true,
  backgroundThreads: 1,
  zstdLevel: 3,
  bigPartBytes: 16 * 2 ** 20,
} as const;

/** resolveOptions applies defaults and rejects values that make no sense, naming the option. */
export function resolveOptions(o: StorageOptions): ResolvedOptions {
  if (typeof o.dataPath !== 'string' || o.dataPath === '') throw new Error('cannot open storage: dataPath must be a non-empty path');
  const r: ResolvedOptions = {
    ...DEFAULTS,
    mergePolicy: DEFAULT_MERGE_POLICY,
    now: Date.now,
    logger: silentLogger,
    ...stripUndefined(o),
  } as ResolvedOptions;
  const positive = ['retentionMs', 'maxLabelsPerTimeseries', 'maxLabelValueLen', 'cacheBytes', 'flushIntervalMs', 'maxBufferedRows', 'maintenanceIntervalMs', 'bigPartBytes'] as const;
  for (const k of positive) {
    if (!(Number.isFinite(r[k]) && r[k] > 0)) throw new Error(`cannot open storage at "${o.dataPath}": option ${k} must be a positive number, got ${String(r[k])}`);
  }
  for (const k of ['minScrapeIntervalMs', 'snapshotsMaxAgeMs', 'backgroundThreads'] as const) {
    if (!(Number.isFinite(r[k]) && r[k] >= 0)) throw new Error(`cannot open storage at "${o.dataPath}": option ${k} must be >= 0, got ${String(r[k])}`);
  }
  if (!Number.isFinite(r.fsyncIntervalMs)) throw new Error(`cannot open storage at "${o.dataPath}": option fsyncIntervalMs must be a number`);
  if (!(Number.isInteger(r.zstdLevel) && r.zstdLevel >= 1 && r.zstdLevel <= 19)) throw new Error(`cannot open storage at "${o.dataPath}": option zstdLevel must be 1..19`);
  return r;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
