// Listing, inspecting, locking, deleting backups of a destination, and retention.

import { BackupNotFoundError } from '../errors.ts';
import { COMPLETE_MARKER, LOCK_MARKER, METADATA_MARKER, isBackupMarker, parseBackupMetadata } from '../markers.ts';
import type { RemoteFile, RemoteFs } from '../remote-fs.ts';
import { backupKind, checkBackupName } from '../rules/backup-name.ts';
import { formatHumanSize } from '../rules/human-size.ts';
import { selectForDeletion, type KeepLast } from '../rules/retention.ts';
import { relativeTo } from '../sync-plan.ts';
import { runWorkers } from '../workers.ts';
import { DEFAULT_CONCURRENCY } from './transfer-options.ts';

/** BackupRecord is SPEC C1; `locked` is present only for a single backup. */
export interface BackupRecord {
  readonly name: string;
  readonly size_bytes: number;
  /** size is size_bytes with a binary unit, as `311.4 KiB`. */
  readonly size: string;
  /** created_at is RFC 3339 (from the backup's metadata). */
  readonly created_at: string;
  readonly locked?: boolean;
}

/** ScannedBackup is what one listing of a destination says about a backup folder. */
export interface ScannedBackup {
  readonly name: string;
  readonly complete: boolean;
  readonly locked: boolean;
  /** sizeBytes adds up the data objects (markers excluded). */
  readonly sizeBytes: number;
  readonly files: readonly RemoteFile[];
}

/**
 * scanBackups lists the whole destination once and groups the objects into backups:
 * `latest` and well-formed interval folders (`daily/2024-01-31`, …); other objects are
 * ignored. Incomplete backups are included with complete=false. Sorted by name.
 */
export async function scanBackups(dst: RemoteFs, signal?: AbortSignal): Promise<ScannedBackup[]> {
  const groups = new Map<string, RemoteFile[]>();
  for (const f of await dst.list('', signal)) {
    const segs = f.path.split('/');
    const name = segs[0] === 'latest' ? 'latest' : segs.slice(0, 2).join('/');
    if (backupKind(name) === undefined || segs.length <= name.split('/').length) continue;
    const list = groups.get(name) ?? [];
    list.push(f);
    groups.set(name, list);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, files]) => summarize(name, files));
}

function summarize(name: string, files: readonly RemoteFile[]): ScannedBackup {
  let sizeBytes = 0;
  let complete = false;
  let locked = false;
  for (const f of files) {
    const rel = relativeTo(name, f.path) ?? '';
    if (rel === COMPLETE_MARKER) complete = true;
    else if (rel === LOCK_MARKER) locked = true;
    else if (!isBackupMarker(rel)) sizeBytes += f.size;
  }
  return { name, complete, locked, sizeBytes, files };
}

/**
 * listBackups returns the records of the complete backups of `dst`, sorted by name, without
 * `locked` (SPEC: GET /api/v1/backups). A backup whose metadata cannot be read is left out
 * (it cannot have been completed by this library).
 */
export async function listBackups(dst: RemoteFs, signal?: AbortSignal): Promise<BackupRecord[]> {
  const complete = (await scanBackups(dst, signal)).filter((b) => b.complete);
  const records: (BackupRecord | undefined)[] = new Array(complete.length);
  const indexed = complete.map((b, i) => ({ b, i }));
  await runWorkers(indexed, DEFAULT_CONCURRENCY, async ({ b, i }, s) => {
    const createdAt = await readCreatedAt(dst, b.name, s);
    records[i] = createdAt === undefined ? undefined : record(b.name, b.sizeBytes, createdAt);
  }, signal);
  return records.filter((r): r is BackupRecord => r !== undefined);
}

/** getBackup returns one complete backup's record including `locked`; BackupNotFoundError otherwise. */
export async function getBackup(dst: RemoteFs, name: string, signal?: AbortSignal): Promise<BackupRecord> {
  checkBackupName(name);
  const files = await dst.list(name, signal);
  const b = summarize(name, files);
  const createdAt = b.complete ? await readCreatedAt(dst, name, signal) : undefined;
  if (createdAt === undefined) {
    throw new BackupNotFoundError(`backup "${name}" does not exist in ${dst.url} or is not complete`, name);
  }
  return { ...record(name, b.sizeBytes, createdAt), locked: b.locked };
}

/**
 * setBackupLocked locks (protects from retention) or unlocks a complete backup and returns its
 * record with `locked`. Throws BackupNotFoundError when the backup does not exist.
 */
export async function setBackupLocked(dst: RemoteFs, name: string, locked: boolean, signal?: AbortSignal): Promise<BackupRecord> {
  await getBackup(dst, name, signal);
  if (locked) await dst.writeFile(`${name}/${LOCK_MARKER}`, '', signal);
  else await dst.delete(`${name}/${LOCK_MARKER}`, signal);
  return getBackup(dst, name, signal);
}

/**
 * deleteBackup removes every object of backup `name`. The complete marker goes first, so an
 * interrupted delete leaves an incomplete backup, never a damaged "complete" one.
 */
export async function deleteBackup(dst: RemoteFs, name: string, opts: { concurrency?: number; signal?: AbortSignal } = {}): Promise<number> {
  checkBackupName(name);
  await dst.delete(`${name}/${COMPLETE_MARKER}`, opts.signal);
  const files = await dst.list(name, opts.signal);
  await runWorkers(files, opts.concurrency ?? DEFAULT_CONCURRENCY, (f, s) => dst.delete(f.path, s), opts.signal);
  return files.length;
}

/**
 * applyRetention deletes the interval backups selectForDeletion picks (complete or not; locked
 * and `latest` are kept) and returns their names. Runs must not overlap with backups.
 */
export async function applyRetention(
  dst: RemoteFs,
  keepLast: KeepLast,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<string[]> {
  const doomed = selectForDeletion(await scanBackups(dst, opts.signal), keepLast);
  for (const name of doomed) await deleteBackup(dst, name, opts);
  return doomed;
}

async function readCreatedAt(dst: RemoteFs, name: string, signal?: AbortSignal): Promise<string | undefined> {
  const raw = await dst.readFile(`${name}/${METADATA_MARKER}`, signal);
  if (raw === undefined) return undefined;
  try {
    return parseBackupMetadata(raw.toString('utf8')).created_at;
  } catch {
    return undefined;
  }
}

function record(name: string, sizeBytes: number, createdAt: string): BackupRecord {
  return { name, size_bytes: sizeBytes, size: formatHumanSize(sizeBytes), created_at: createdAt };
}
