// The restore mark (SPEC C2, DECISIONS.md "Restore mark"): file `backup_restore.ignore` in the
// storage data path holding the full URL of the backup to restore. It is only written for a
// backup that exists and is complete.

import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { BackupNotFoundError } from '../errors.ts';
import { writeLocalFileAtomic } from '../local-write.ts';
import { COMPLETE_MARKER, RESTORE_IN_PROGRESS, RESTORE_MARK } from '../markers.ts';
import type { RemoteFs } from '../remote-fs.ts';
import { formatRemoteUrl, isRemoteUrl, joinRemoteUrl, parseRemoteUrl } from '../remote-url.ts';
import { checkBackupName } from '../rules/backup-name.ts';

/** RestoreMark is the mark as the API shows it: the full URL of the backup. */
export interface RestoreMark {
  readonly backup: string;
}

/** CreateRestoreMarkInput is the input of createRestoreMark. */
export interface CreateRestoreMarkInput {
  /** dataDir is the storage data path. */
  readonly dataDir: string;
  /** backup is a name relative to `dst` (`daily/2024-01-31`) or a full URL of any supported scheme. */
  readonly backup: string;
  /** dst is the `-dst` store; relative names resolve against it. */
  readonly dst: RemoteFs;
  /** openRemote opens a RemoteFs on a full backup URL (for marks pointing elsewhere). */
  readonly openRemote: (url: string) => Promise<RemoteFs>;
  readonly signal?: AbortSignal | undefined;
}

/**
 * createRestoreMark checks that the backup exists and is complete, then writes its full URL
 * to the mark (atomically, replacing an older mark) and returns the mark. It throws
 * BackupNotFoundError for a missing or incomplete backup and ParseError for a bad name or URL.
 */
export async function createRestoreMark(input: CreateRestoreMarkInput): Promise<RestoreMark> {
  let url: string;
  if (isRemoteUrl(input.backup)) {
    url = formatRemoteUrl(parseRemoteUrl(input.backup));
    const remote = await input.openRemote(url);
    try {
      await requireComplete(remote, COMPLETE_MARKER, url, input.signal);
    } finally {
      await remote.close();
    }
  } else {
    const name = checkBackupName(input.backup);
    url = formatRemoteUrl(joinRemoteUrl(parseRemoteUrl(input.dst.url), name));
    await requireComplete(input.dst, `${name}/${COMPLETE_MARKER}`, url, input.signal);
  }
  await writeLocalFileAtomic(join(input.dataDir, RESTORE_MARK), url);
  return { backup: url };
}

/** getRestoreMark returns the mark in `dataDir`, or undefined when there is none. */
export async function getRestoreMark(dataDir: string): Promise<RestoreMark | undefined> {
  const url = await readTrimmed(join(dataDir, RESTORE_MARK));
  return url === undefined ? undefined : { backup: url };
}

/** deleteRestoreMark removes the mark; it returns whether one existed. */
export async function deleteRestoreMark(dataDir: string): Promise<boolean> {
  try {
    await unlink(join(dataDir, RESTORE_MARK));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new Error(`cannot delete the restore mark in "${dataDir}": ${(err as Error).message}`, { cause: err });
  }
}

/** PendingRestore is a restore the `restore` command has to run, and why. */
export interface PendingRestore {
  readonly url: string;
  /** from is 'mark' for a marked backup, 'in-progress' for an interrupted restore whose mark is already gone. */
  readonly from: 'mark' | 'in-progress';
}

/**
 * findPendingRestore tells the `restore` command what to do: restore the marked backup; or,
 * with no mark but a `restore-in-progress` file, finish the interrupted restore it names
 * (restore removes the mark before that file, so this state means only the last step was
 * lost); or nothing (undefined: exit successfully).
 */
export async function findPendingRestore(dataDir: string): Promise<PendingRestore | undefined> {
  const mark = await getRestoreMark(dataDir);
  if (mark) return { url: mark.backup, from: 'mark' };
  const url = await readTrimmed(join(dataDir, RESTORE_IN_PROGRESS));
  return url ? { url, from: 'in-progress' } : undefined;
}

async function requireComplete(remote: RemoteFs, markerPath: string, url: string, signal?: AbortSignal): Promise<void> {
  if (!(await remote.hasFile(markerPath, signal))) {
    throw new BackupNotFoundError(`cannot mark ${url} for restore: the backup does not exist or is not complete`, url);
  }
}

async function readTrimmed(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read "${path}": ${(err as Error).message}`, { cause: err });
  }
}
