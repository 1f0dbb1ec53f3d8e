// The `restore` command (SPEC C, CLI table; the Kubernetes init container): restore the backup
// the mark names into -storageDataPath, or finish a restore that was interrupted; do nothing,
// successfully, when neither exists. The storage must be stopped (restore refuses otherwise).

import { errorMessage, findPendingRestore, restore, type DataDirLockCheck, type Now, type OnProgress, type RestoreResult } from '../../lib/backup/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import { addDownloadedBytes, recordError } from './metrics.ts';
import { createProgressReport, type Terminal } from './progress-report.ts';
import type { OpenRemote } from './remote-access.ts';

/** RestoreCommandOptions configure runRestoreCommand. */
export interface RestoreCommandOptions {
  /** dataDir is the absolute storage data path. */
  readonly dataDir: string;
  readonly openRemote: OpenRemote;
  readonly concurrency: number;
  readonly maxBytesPerSecond: number;
  readonly logger: Logger;
  readonly now: Now;
  readonly signal?: AbortSignal | undefined;
  readonly terminal?: Terminal | undefined;
  readonly progressLogIntervalMs?: number | undefined;
  /** isDataDirLocked overrides the storage lock check (tests). */
  readonly isDataDirLocked?: DataDirLockCheck | undefined;
}

/**
 * runRestoreCommand restores what findPendingRestore reports and returns the result, or
 * undefined when there is nothing to restore. Failures throw an error naming the backup and the
 * data directory; the library guarantees the directory is untouched when the backup is missing,
 * incomplete or corrupt, and that running again finishes an interrupted restore.
 */
export async function runRestoreCommand(o: RestoreCommandOptions): Promise<RestoreResult | undefined> {
  const pending = await findPendingRestore(o.dataDir);
  if (pending === undefined) {
    o.logger.info(`no restore mark in "${o.dataDir}"; nothing to restore`);
    return undefined;
  }
  o.logger.info(pending.from === 'mark'
    ? `restoring ${pending.url} into "${o.dataDir}"`
    : `finishing the interrupted restore of ${pending.url} into "${o.dataDir}"`);
  const report = createProgressReport({ logger: o.logger, what: `restore of ${pending.url}`, now: o.now, terminal: o.terminal, logIntervalMs: o.progressLogIntervalMs });
  let counted = 0;
  const onProgress: OnProgress = (p) => {
    addDownloadedBytes(p.bytesDone - counted);
    counted = p.bytesDone;
    report.onProgress(p);
  };
  try {
    const src = await o.openRemote(pending.url);
    try {
      const res = await restore(src, o.dataDir, {
        concurrency: o.concurrency, maxBytesPerSecond: o.maxBytesPerSecond, now: o.now, onProgress, signal: o.signal, isDataDirLocked: o.isDataDirLocked,
      });
      addDownloadedBytes(res.downloadedBytes - counted);
      o.logger.info(`restored ${res.url} into "${o.dataDir}": ${res.files} files (${res.totalBytes} bytes), downloaded ${res.downloadedBytes} bytes` +
        (res.keptFiles > 0 ? `, kept ${res.keptFiles} files an interrupted attempt had finished` : ''));
      return res;
    } finally {
      await src.close();
    }
  } catch (err) {
    recordError('restore');
    throw new Error(`cannot restore ${pending.url} into "${o.dataDir}": ${errorMessage(err)}`, { cause: err });
  } finally {
    report.done();
  }
}
