import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { listLocalFiles } from '../local-tree.ts';
import { COMPLETE_MARKER, formatBackupMetadata, METADATA_MARKER, RESTORE_IN_PROGRESS, RESTORE_MARK } from '../markers.ts';
import { DEFAULT_PART_SIZE, splitFile, type Part } from '../part.ts';
import { ProgressTracker } from '../progress.ts';
import type { RemoteFile, RemoteFs } from '../remote-fs.ts';
import { checkBackupName, LATEST } from '../rules/backup-name.ts';
import { planSync } from '../sync-plan.ts';
import { DEFAULT_LOCK_FILE } from '../data-dir-lock.ts';
import { executePlan, sum, type PartOpener } from './sync-exec.ts';
import { resolveTransfer, type TransferOptions } from './transfer-options.ts';

/**
 * DEFAULT_SKIP_ROOT_NAMES are files at the root of a source directory that are process control
 * files, not data: the data-dir lock and the restore files.
 */
export const DEFAULT_SKIP_ROOT_NAMES: readonly string[] = [DEFAULT_LOCK_FILE, RESTORE_MARK, RESTORE_IN_PROGRESS];

/** BackupOptions configures backup(). */
export interface BackupOptions extends TransferOptions {
  /** partSize is the largest part in bytes; default 1 GiB. */
  readonly partSize?: number | undefined;
  /**
   * origins are other backups of the same destination whose parts are server-side copied
   * instead of uploaded; default ['latest'] unless the target is latest itself.
   */
  readonly origins?: readonly string[] | undefined;
  /** skipRootNames are root-level source files not backed up; default DEFAULT_SKIP_ROOT_NAMES. */
  readonly skipRootNames?: readonly string[] | undefined;
}

/** BackupResult reports what a backup did. Byte counts are part sizes. */
export interface BackupResult {
  readonly name: string;
  /** totalFiles, totalBytes and totalParts describe the whole backup after the run. */
  readonly totalFiles: number;
  readonly totalBytes: number;
  readonly totalParts: number;
  readonly uploadedParts: number;
  readonly uploadedBytes: number;
  readonly copiedParts: number;
  readonly copiedBytes: number;
  /** keptParts were already in place. */
  readonly keptParts: number;
  /** deletedFiles were in the destination folder but not in the source. */
  readonly deletedFiles: number;
  /** createdAt and completedAt are the run's start and end (ms), as written to the metadata. */
  readonly createdAt: number;
  readonly completedAt: number;
}

/**
 * backup makes folder `name` of `dst` an exact, restorable copy of the local directory
 * `srcDir` (a snapshot: a tree of immutable files), incrementally:
 *  1. the complete marker is deleted first, so a failed run is never mistaken for a backup;
 *  2. parts the folder lacks are server-side copied from an origin backup when one has them,
 *     else uploaded; objects the source lacks are deleted;
 *  3. the metadata and then the complete marker are written last.
 * A failed run is resumed by running again: only what is still missing is transferred.
 * Runs into the same folder must not overlap (the caller serialises them).
 */
export async function backup(srcDir: string, dst: RemoteFs, name: string, opts: BackupOptions = {}): Promise<BackupResult> {
  checkBackupName(name);
  const t = resolveTransfer(opts);
  const createdAt = t.now();
  const partSize = opts.partSize ?? DEFAULT_PART_SIZE;
  const files = await listLocalFiles(srcDir, { skipRootNames: opts.skipRootNames ?? DEFAULT_SKIP_ROOT_NAMES, signal: t.signal });
  const wanted = files.flatMap((f) => splitFile(f.path, f.size, partSize));
  await dst.delete(`${name}/${COMPLETE_MARKER}`, t.signal);
  const existing = await dst.list(name, t.signal);
  const origins = await listOrigins(dst, name, opts.origins ?? (name === LATEST ? [] : [LATEST]), t.signal);
  const plan = planSync({ backup: name, wanted, existing, origins });
  const tracker = new ProgressTracker({
    bytesTotal: sum(plan.upload.map((p) => p.size)),
    partsTotal: plan.upload.length + plan.copy.length,
    now: t.now,
    onProgress: opts.onProgress,
    intervalMs: opts.progressIntervalMs,
  });
  const counts = await executePlan(dst, name, plan, t, tracker, localPartOpener(srcDir));
  tracker.finish();
  const completedAt = t.now();
  const totals = { files: files.length, bytes: sum(files.map((f) => f.size)) };
  await dst.writeFile(`${name}/${METADATA_MARKER}`, formatBackupMetadata(createdAt, completedAt, totals), t.signal);
  await dst.writeFile(`${name}/${COMPLETE_MARKER}`, '', t.signal);
  return {
    name,
    totalFiles: totals.files,
    totalBytes: totals.bytes,
    totalParts: wanted.length,
    keptParts: plan.keptParts,
    ...counts,
    createdAt,
    completedAt,
  };
}

/** listOrigins lists the files of each origin backup (other than `name`) by name. */
export async function listOrigins(
  dst: RemoteFs,
  name: string,
  origins: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Map<string, RemoteFile[]>> {
  const out = new Map<string, RemoteFile[]>();
  for (const o of origins) {
    if (o === name || out.has(o)) continue;
    checkBackupName(o);
    out.set(o, await dst.list(o, signal));
  }
  return out;
}

function localPartOpener(srcDir: string): PartOpener {
  return (p: Part, signal: AbortSignal) => {
    if (p.size === 0) return Readable.from([]);
    const path = join(srcDir, ...p.filePath.split('/'));
    return createReadStream(path, { start: p.offset, end: p.offset + p.size - 1, signal });
  };
}
