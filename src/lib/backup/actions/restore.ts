import { mkdir, open, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isDataDirLocked, type DataDirLockCheck } from '../data-dir-lock.ts';
import { BackupNotFoundError, CorruptBackupError, DataDirLockedError, errorMessage } from '../errors.ts';
import { listLocalFiles } from '../local-tree.ts';
import { fsyncDir, writeLocalFileAtomic } from '../local-write.ts';
import { COMPLETE_MARKER, METADATA_MARKER, parseBackupMetadata, RESTORE_IN_PROGRESS, RESTORE_MARK, type BackupMetadata } from '../markers.ts';
import { meterStream } from '../metered-stream.ts';
import { ProgressTracker } from '../progress.ts';
import type { RemoteFs } from '../remote-fs.ts';
import { planRestore, type RestoreFile } from '../restore-plan.ts';
import { runWorkers } from '../workers.ts';
import { sum } from './sync-exec.ts';
import { resolveTransfer, type ResolvedTransfer, type TransferOptions } from './transfer-options.ts';

/** RestoreOptions configures restore(). */
export interface RestoreOptions extends TransferOptions {
  /** isDataDirLocked tells whether a storage process holds the data dir; default checks flock.lock. */
  readonly isDataDirLocked?: DataDirLockCheck | undefined;
  /** fsyncDir flushes one directory's entries; default fsyncDir of local-write.ts (tests observe it). */
  readonly fsyncDir?: ((absDir: string) => Promise<void>) | undefined;
}

/** RestoreResult reports what restore() did. */
export interface RestoreResult {
  /** url is the backup restored (the source RemoteFs root). */
  readonly url: string;
  readonly files: number;
  readonly totalBytes: number;
  readonly downloadedBytes: number;
  /** keptFiles were already restored by an interrupted earlier attempt of the same restore. */
  readonly keptFiles: number;
}

/**
 * restore replaces the contents of `dataDir` with the backup at the root of `src`
 * (a RemoteFs opened on the backup's own URL). Order, so that nothing is half-restored:
 *  1. refuse while a storage process holds the data dir (DataDirLockedError);
 *  2. refuse unless the backup is complete (BackupNotFoundError), its parts cover every file
 *     exactly and add up to the files and bytes its metadata recorded (CorruptBackupError) —
 *     the data dir is untouched until here;
 *  3. write `restore-in-progress` (the TSDB refuses to start while it exists) with the URL;
 *  4. clear the data dir except the restore mark and that file;
 *  5. download every file to a temporary name, fsync, rename into place;
 *  6. fsync every directory of the restored tree, so the renames survive a crash;
 *  7. remove the restore mark, then `restore-in-progress` (each removal made durable).
 * Running it again after an interruption completes the restore; files an earlier attempt of
 * the same backup finished are kept instead of downloaded again.
 */
export async function restore(src: RemoteFs, dataDir: string, opts: RestoreOptions = {}): Promise<RestoreResult> {
  if (!isAbsolute(dataDir)) throw new Error(`cannot restore into "${dataDir}": the data path must be absolute`);
  const t = resolveTransfer(opts);
  if (await (opts.isDataDirLocked ?? isDataDirLocked)(dataDir)) {
    throw new DataDirLockedError(`cannot restore into "${dataDir}": a storage process holds it; stop the storage first`, dataDir);
  }
  if (!(await src.hasFile(COMPLETE_MARKER, t.signal))) {
    throw new BackupNotFoundError(`cannot restore ${src.url}: it does not exist or is not complete`, src.url);
  }
  const files = planRestore(await src.list('', t.signal));
  await checkTotals(src, files, t.signal);
  await mkdir(dataDir, { recursive: true });
  const inProgress = join(dataDir, RESTORE_IN_PROGRESS);
  const resuming = (await readFile(inProgress, 'utf8').catch(() => undefined)) === src.url;
  await writeLocalFileAtomic(inProgress, src.url);
  const keep = resuming ? await finishedFiles(dataDir, files) : new Set<string>();
  await clearDataDir(dataDir, keep);
  const todo = files.filter((f) => !keep.has(f.path));
  const tracker = new ProgressTracker({
    bytesTotal: sum(todo.map((f) => f.size)),
    partsTotal: sum(todo.map((f) => f.parts.length)),
    now: t.now,
    onProgress: opts.onProgress,
    intervalMs: opts.progressIntervalMs,
  });
  await runWorkers(todo, t.concurrency, (f, signal) => downloadFile(src, dataDir, f, t, tracker, signal), t.signal);
  tracker.finish();
  const syncDir = opts.fsyncDir ?? fsyncDir;
  await runWorkers(directoriesOf(files), t.concurrency, (rel) => syncDir(rel === '' ? dataDir : join(dataDir, ...rel.split('/'))), t.signal);
  await unlink(join(dataDir, RESTORE_MARK)).catch(ignoreMissing);
  await syncDir(dataDir);
  await unlink(inProgress);
  await syncDir(dataDir);
  return {
    url: src.url,
    files: files.length,
    totalBytes: sum(files.map((f) => f.size)),
    downloadedBytes: sum(todo.map((f) => f.size)),
    keptFiles: keep.size,
  };
}

// finishedFiles returns the backup files already present with the right size. Only used when
// resuming the same restore: those files were renamed into place complete, from this backup.
async function finishedFiles(dataDir: string, files: readonly RestoreFile[]): Promise<Set<string>> {
  const want = new Map(files.map((f) => [f.path, f.size]));
  const local = await listLocalFiles(dataDir, { skipRootNames: [RESTORE_MARK, RESTORE_IN_PROGRESS] });
  return new Set(local.filter((l) => want.get(l.path) === l.size).map((l) => l.path));
}

// checkTotals compares the plan with the totals the backup recorded when it was made: a file
// whose every part is gone leaves no trace in the listing.
async function checkTotals(src: RemoteFs, files: readonly RestoreFile[], signal: AbortSignal | undefined): Promise<void> {
  const raw = await src.readFile(METADATA_MARKER, signal);
  let meta: BackupMetadata;
  try {
    meta = parseBackupMetadata(raw?.toString('utf8') ?? '');
  } catch (err) {
    throw new CorruptBackupError(`backup is corrupt or incomplete: its ${METADATA_MARKER} is ${raw === undefined ? 'missing' : 'unreadable'}`, { cause: err });
  }
  if (meta.files === undefined || meta.bytes === undefined) return;
  const bytes = sum(files.map((f) => f.size));
  if (meta.files !== files.length || meta.bytes !== bytes) {
    throw new CorruptBackupError(`backup is corrupt or incomplete: it was made of ${meta.files} files (${meta.bytes} bytes) but its parts make ${files.length} files (${bytes} bytes)`);
  }
}

// directoriesOf returns every directory holding a restored file or directory, '' being the
// data dir itself: a new directory is an entry of its parent, so all ancestors need an fsync.
function directoriesOf(files: readonly RestoreFile[]): string[] {
  const dirs = new Set<string>(['']);
  for (const f of files) {
    const segs = f.path.split('/');
    for (let n = 1; n < segs.length; n++) dirs.add(segs.slice(0, n).join('/'));
  }
  return [...dirs].sort();
}

// clearDataDir removes everything in dataDir except the restore files and the kept files.
async function clearDataDir(dataDir: string, keep: ReadonlySet<string>): Promise<void> {
  const clear = async (rel: string): Promise<boolean> => {
    const abs = rel === '' ? dataDir : join(dataDir, rel);
    let empty = true;
    for (const e of await readdir(abs, { withFileTypes: true })) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (rel === '' && (e.name === RESTORE_MARK || e.name === RESTORE_IN_PROGRESS)) empty = false;
      else if (keep.has(child)) empty = false;
      else if (e.isDirectory() && keep.size > 0) {
        if (await clear(child)) await rmdir(join(abs, e.name));
        else empty = false;
      } else await rm(join(abs, e.name), { recursive: true, force: true });
    }
    return empty;
  };
  await clear('').catch((err: unknown) => {
    throw new Error(`cannot clear data directory "${dataDir}" for the restore: ${errorMessage(err)}`, { cause: err });
  });
}

async function downloadFile(
  src: RemoteFs,
  dataDir: string,
  f: RestoreFile,
  t: ResolvedTransfer,
  tracker: ProgressTracker,
  signal: AbortSignal,
): Promise<void> {
  const target = join(dataDir, ...f.path.split('/'));
  const temp = `${target}.restore-tmp`;
  try {
    await mkdir(join(target, '..'), { recursive: true });
    const fh = await open(temp, 'w');
    try {
      for (const p of f.parts) {
        if (p.size === 0) continue;
        const body = meterStream(await src.read(p.remotePath, signal), {
          expectedBytes: p.size,
          what: `part "${p.remotePath}"`,
          bucket: t.bucket,
          onBytes: (n) => tracker.addBytes(n),
          signal,
        });
        let pos = p.offset;
        for await (const chunk of body as AsyncIterable<Buffer>) {
          await fh.write(chunk, 0, chunk.length, pos);
          pos += chunk.length;
        }
        tracker.partDone();
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw new Error(`cannot restore file "${f.path}" from ${src.url}: ${errorMessage(err)}`, { cause: err });
  }
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}
