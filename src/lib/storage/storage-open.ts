import { existsSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { type BackgroundRunner, createRunner } from './background/runner.ts';
import { StorageCore, storagePaths } from './core.ts';
import { errorMessage } from './common/errors.ts';
import { listDirs, mkdirp, removeDir } from './common/fs-util.ts';
import { IndexTable } from './index/index-table.ts';
import { KIND_DELETED, readIdKey, readTenantKey } from './index/keys.ts';
import { DirLock, RESTORE_IN_PROGRESS } from './lock.ts';
import { LruCache } from './common/lru-cache.ts';
import type { ResolvedOptions } from './options.ts';
import type { BlockHeaders } from './part/part-format.ts';
import { Partition } from './partition.ts';
import { PARTITION_NAME_RE } from './common/partition-name.ts';
import { cutoffDay } from './retention.ts';
import { removeIncompleteSnapshots } from './snapshot.ts';
import { Wal } from './wal/wal.ts';
import { WalApplier } from './wal-apply.ts';
import { replayWal } from './wal/wal-replay.ts';

/** WAL_SEGMENT_BYTES rotates WAL segments at this size between flushes. */
const WAL_SEGMENT_BYTES = 128 * 2 ** 20;

/**
 * openCore performs startup: refuse a directory under restore, take the lock, remove what a
 * crash left half-done (tmp dirs, unlisted parts, manifest-less partitions, incomplete
 * snapshots), load index and partitions, load deletion markers, replay the WAL into memory and
 * start a fresh WAL segment. On failure the lock is released and everything opened is closed.
 */
export function openCore(opts: ResolvedOptions): { core: StorageCore; lock: DirLock; runner: BackgroundRunner } {
  if (endianness() !== 'LE') throw new Error('cannot open storage: the on-disk format needs a little-endian CPU');
  const paths = storagePaths(opts.dataPath);
  mkdirp(paths.root);
  if (existsSync(join(paths.root, RESTORE_IN_PROGRESS))) {
    throw new Error(
      `cannot open storage at "${paths.root}": a restore is in progress (file "${RESTORE_IN_PROGRESS}" exists); ` +
        'wait for the backup manager to finish, or remove the file if that restore was abandoned',
    );
  }
  const lock = DirLock.acquire(paths.root);
  const runner = createRunner(opts.backgroundThreads, opts.logger);
  let core: StorageCore | undefined;
  try {
    for (const d of [paths.data, paths.index, paths.snapshots]) mkdirp(d);
    removeIncompleteSnapshots(paths.snapshots);
    const sizes = StorageCore.cacheSizes(opts.cacheBytes);
    const indexCache = new LruCache<string[]>(sizes.indexBlocks);
    const headersCache = new LruCache<BlockHeaders>(sizes.headers);
    const index = IndexTable.open(paths.index, {
      zstdLevel: opts.zstdLevel,
      cache: indexCache,
      logger: opts.logger,
      cutoffDay: () => cutoffDay(opts.now(), opts.retentionMs),
      mergePolicy: opts.mergePolicy,
      runner,
    });
    core = new StorageCore(opts, paths, index, { indexCache, headersCache });
    loadPartitions(core);
    loadDeleted(core);
    core.maxSeriesId = index.maxSeriesId();
    const applier = new WalApplier(core);
    const replay = replayWal(paths.wal, opts.logger, (r) => applier.apply(r));
    if (replay.records > 0) {
      opts.logger.info({ segments: replay.segments, records: replay.records, samples: applier.samples }, 'replayed the write-ahead log');
    }
    if (applier.unknownSeries > 0) opts.logger.error({ series: applier.unknownSeries }, 'WAL samples of series missing from the index were dropped');
    core.wal = new Wal(paths.wal, { fsyncIntervalMs: opts.fsyncIntervalMs, maxSegmentBytes: WAL_SEGMENT_BYTES, logger: opts.logger });
    return { core, lock, runner };
  } catch (err) {
    if (core) {
      for (const p of core.partitions.values()) p.close();
      void core.index.close();
    }
    void runner.close();
    lock.release();
    throw new Error(`cannot open storage at "${paths.root}": ${errorMessage(err)}`, { cause: err });
  }
}

function loadPartitions(core: StorageCore): void {
  removeDir(join(core.paths.data, 'tmp'));
  for (const name of listDirs(core.paths.data)) {
    if (!PARTITION_NAME_RE.test(name)) {
      core.opts.logger.warn({ dir: join(core.paths.data, name) }, 'ignoring unexpected directory in the data directory');
      continue;
    }
    const p = Partition.open(core.paths.data, name, core.partitionOptions);
    if (p) core.partitions.set(name, p);
  }
}

function loadDeleted(core: StorageCore): void {
  const view = core.index.view();
  try {
    view.scanPrefix(KIND_DELETED, (item) => {
      const t = readTenantKey(item, 1);
      core.deleted.add(readIdKey(item, 9), `${t.accountID}:${t.projectID}`);
    });
  } finally {
    view.release();
  }
}
