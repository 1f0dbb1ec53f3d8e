// One backup run (DECISIONS.md "Schedule"): snapshot → sync `latest` → server-side copy into
// each due interval folder → retention → delete the snapshot, which happens even when a step
// fails. Runs must not overlap; BackupRunner serialises them.

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  backup, backupKind, copyBackup, deleteBackup, dueRuns, errorMessage, intervalBackupName, listBackups, LATEST, scanBackups,
  selectForDeletion, INTERVALS, type BackupResult, type CopyResult, type EnabledIntervals, type KeepLast, type Now, type OnProgress,
  type RemoteFs,
} from '../../lib/backup/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import { addCopiedBytes, addUploadedBytes, recordError, recordFailure, recordSuccess } from './metrics.ts';
import { createProgressReport, type Terminal } from './progress-report.ts';
import type { SnapshotApi } from './snapshot-client.ts';

/** RunContext is everything a run needs; it holds no per-run state. */
export interface RunContext {
  readonly dst: RemoteFs;
  readonly snapshots: SnapshotApi;
  /** storageDataPath is the absolute storage data path; snapshots are in its `snapshots/` folder. */
  readonly storageDataPath: string;
  readonly enabled: EnabledIntervals;
  readonly keepLast: KeepLast;
  readonly concurrency: number;
  /** maxBytesPerSecond caps uploads over all workers; 0 = unlimited. */
  readonly maxBytesPerSecond: number;
  readonly now: Now;
  readonly logger: Logger;
  readonly terminal?: Terminal | undefined;
  /** progressLogIntervalMs is the least time between progress log lines; default 10 s. */
  readonly progressLogIntervalMs?: number | undefined;
}

/** RunReport tells what a successful run did. */
export interface RunReport {
  readonly snapshot: string;
  readonly latest: BackupResult;
  readonly copies: readonly CopyResult[];
  /** deleted are the backups removed by retention or as incomplete leftovers of past periods. */
  readonly deleted: readonly string[];
}

/**
 * runBackupOnce performs one run. The interval folders due are those of the period holding the
 * run's start time. Retention runs only when every step before it succeeded, so a failed copy
 * never costs an older good backup. Throws the first failure, naming the step and object; the
 * snapshot is deleted in every case (a failure to delete it is logged and counted, not thrown).
 */
export async function runBackupOnce(ctx: RunContext, signal: AbortSignal): Promise<RunReport> {
  const startedAt = ctx.now();
  let snapshot: string;
  try {
    snapshot = await ctx.snapshots.create(signal);
  } catch (err) {
    recordError('snapshot_create');
    recordFailure('latest');
    throw new Error(`cannot create a snapshot: ${errorMessage(err)}`, { cause: err });
  }
  ctx.logger.info(`created snapshot "${snapshot}"`);
  try {
    const latest = await syncLatest(ctx, snapshot, signal);
    const copies = await copyDueIntervals(ctx, startedAt, signal);
    const deleted = await applyRetention(ctx, startedAt, signal);
    return { snapshot, latest, copies, deleted };
  } finally {
    await deleteSnapshot(ctx, snapshot);
  }
}

async function syncLatest(ctx: RunContext, snapshot: string, signal: AbortSignal): Promise<BackupResult> {
  const dir = join(ctx.storageDataPath, 'snapshots', snapshot);
  const report = createProgressReport({ logger: ctx.logger, what: `upload of "${LATEST}"`, now: ctx.now, terminal: ctx.terminal, logIntervalMs: ctx.progressLogIntervalMs });
  let counted = 0;
  const onProgress: OnProgress = (p) => {
    addUploadedBytes(p.bytesDone - counted);
    counted = p.bytesDone;
    report.onProgress(p);
  };
  try {
    await requireDirectory(dir, snapshot);
    const res = await backup(dir, ctx.dst, LATEST, { concurrency: ctx.concurrency, maxBytesPerSecond: ctx.maxBytesPerSecond, now: ctx.now, onProgress, signal });
    addUploadedBytes(res.uploadedBytes - counted);
    addCopiedBytes(res.copiedBytes);
    recordSuccess('latest', res.completedAt, res.completedAt - res.createdAt);
    ctx.logger.info(`backed up snapshot "${snapshot}" to ${ctx.dst.url}/${LATEST}: uploaded ${res.uploadedParts} parts (${res.uploadedBytes} bytes), ` +
      `kept ${res.keptParts}, deleted ${res.deletedFiles} stale objects; the backup holds ${res.totalParts} parts (${res.totalBytes} bytes)`);
    return res;
  } catch (err) {
    recordFailure('latest');
    throw new Error(`cannot back up snapshot "${snapshot}" to ${ctx.dst.url}/${LATEST}: ${errorMessage(err)}`, { cause: err });
  } finally {
    report.done();
  }
}

async function requireDirectory(dir: string, snapshot: string): Promise<void> {
  const st = await stat(dir).catch((err: unknown) => {
    throw new Error(`snapshot "${snapshot}" is not at "${dir}": -storageDataPath must be the storage's own data path (${errorMessage(err)})`, { cause: err });
  });
  if (!st.isDirectory()) throw new Error(`snapshot "${snapshot}" at "${dir}" is not a directory`);
}

// copyDueIntervals copies latest into every due folder; one failing copy does not stop the
// others (each interval is its own backup), but the run fails afterwards.
async function copyDueIntervals(ctx: RunContext, startedAt: number, signal: AbortSignal): Promise<CopyResult[]> {
  const existing = (await listBackups(ctx.dst, signal)).map((b) => b.name);
  const copies: CopyResult[] = [];
  const failures: Error[] = [];
  for (const due of dueRuns({ now: startedAt, enabled: ctx.enabled, existing })) {
    const t = ctx.now();
    try {
      const res = await copyBackup(ctx.dst, LATEST, due.name, { concurrency: ctx.concurrency, now: ctx.now, signal });
      addCopiedBytes(res.copiedBytes);
      recordSuccess(due.interval, ctx.now(), ctx.now() - t);
      ctx.logger.info(`copied "${LATEST}" to "${due.name}" server-side: ${res.copiedParts} parts (${res.copiedBytes} bytes), kept ${res.keptParts}`);
      copies.push(res);
    } catch (err) {
      recordFailure(due.interval);
      const e = new Error(`cannot copy "${LATEST}" to "${due.name}" in ${ctx.dst.url}: ${errorMessage(err)}`, { cause: err });
      if (signal.aborted) throw e;
      ctx.logger.error({ err: e }, `cannot make the ${due.interval} backup`);
      failures.push(e);
    }
  }
  if (failures.length > 0) throw failures[0]!;
  return copies;
}

// applyRetention deletes what -keepLast* selects and interval backups of past periods that never
// completed (they will never be completed, are not restorable, and would count among the newest).
async function applyRetention(ctx: RunContext, startedAt: number, signal: AbortSignal): Promise<string[]> {
  try {
    const scanned = await scanBackups(ctx.dst, signal);
    const current = new Set(INTERVALS.map((i) => intervalBackupName(i, startedAt)));
    const stale = scanned.filter((b) => !b.complete && backupKind(b.name) !== LATEST && !current.has(b.name)).map((b) => b.name);
    const doomed = selectForDeletion(scanned.filter((b) => !stale.includes(b.name)), ctx.keepLast);
    if (stale.length > 0) ctx.logger.info(`deleting incomplete backups of past periods: ${stale.join(', ')}`);
    if (doomed.length > 0) ctx.logger.info(`retention: deleting ${describeByInterval(doomed)}`);
    for (const name of [...stale, ...doomed]) await deleteBackup(ctx.dst, name, { concurrency: ctx.concurrency, signal });
    return [...stale, ...doomed];
  } catch (err) {
    recordError('retention');
    throw new Error(`cannot apply retention in ${ctx.dst.url}: ${errorMessage(err)}`, { cause: err });
  }
}

// describeByInterval renders `2 daily backups (daily/…, daily/…), 1 hourly backup (hourly/…)`.
function describeByInterval(names: readonly string[]): string {
  const parts: string[] = [];
  for (const interval of INTERVALS) {
    const of = names.filter((n) => backupKind(n) === interval);
    if (of.length > 0) parts.push(`${of.length} ${interval} backup${of.length === 1 ? '' : 's'} (${of.join(', ')})`);
  }
  return parts.join(', ');
}

async function deleteSnapshot(ctx: RunContext, snapshot: string): Promise<void> {
  try {
    // Not the run's signal: a run stopped by shutdown must still remove its snapshot.
    await ctx.snapshots.delete(snapshot);
    ctx.logger.info(`deleted snapshot "${snapshot}"`);
  } catch (err) {
    recordError('snapshot_delete');
    ctx.logger.error({ err }, `cannot delete snapshot "${snapshot}"; delete it through the storage's /snapshot/delete`);
  }
}
