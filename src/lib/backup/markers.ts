// Marker files (DECISIONS.md "Backup manager"). The first three live at the root of a backup
// folder; the restore mark and the in-progress file live in the storage data directory.

import { ParseError } from './errors.ts';

/** COMPLETE_MARKER exists only while the backup folder holds a whole, restorable backup. */
export const COMPLETE_MARKER = 'backup_complete.ignore';
/** METADATA_MARKER holds BackupMetadata as JSON. */
export const METADATA_MARKER = 'backup_metadata.ignore';
/** LOCK_MARKER protects the backup from retention. */
export const LOCK_MARKER = 'backup_locked.ignore';
/** RESTORE_MARK is the data-directory file holding the full URL of the backup to restore. */
export const RESTORE_MARK = 'backup_restore.ignore';
/** RESTORE_IN_PROGRESS is written before a restore touches the data directory; the TSDB refuses to start while it exists. */
export const RESTORE_IN_PROGRESS = 'restore-in-progress';

/** isBackupMarker tells whether a path relative to a backup root is one of its marker files. */
export function isBackupMarker(relPath: string): boolean {
  return relPath === COMPLETE_MARKER || relPath === METADATA_MARKER || relPath === LOCK_MARKER;
}

/**
 * BackupMetadata is the content of METADATA_MARKER; times are RFC 3339 strings in UTC. `files`
 * and `bytes` count the backed-up files and their bytes: parts alone cannot show that a whole
 * file is missing, so restore checks its plan against them (absent in backups made before they
 * existed).
 */
export interface BackupMetadata {
  readonly created_at: string;
  readonly completed_at: string;
  readonly files?: number;
  readonly bytes?: number;
}

/** BackupTotals are the file and byte counts of a backup. */
export interface BackupTotals {
  readonly files: number;
  readonly bytes: number;
}

/** formatBackupMetadata encodes metadata from millisecond timestamps and the backup's totals. */
export function formatBackupMetadata(createdAtMs: number, completedAtMs: number, totals?: BackupTotals): string {
  const m: BackupMetadata = {
    created_at: new Date(createdAtMs).toISOString(),
    completed_at: new Date(completedAtMs).toISOString(),
    ...(totals ? { files: totals.files, bytes: totals.bytes } : {}),
  };
  return JSON.stringify(m);
}

const RFC3339_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * parseBackupMetadata decodes METADATA_MARKER content. It throws ParseError unless the text is
 * a JSON object whose created_at and completed_at are RFC 3339 timestamps and whose files and
 * bytes, when present, are non-negative integers.
 */
export function parseBackupMetadata(text: string): BackupMetadata {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new ParseError(`cannot parse backup metadata: ${(err as Error).message}`, { cause: err });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ParseError('cannot parse backup metadata: expected a JSON object');
  }
  const o = v as Record<string, unknown>;
  const m: BackupMetadata = { created_at: timestampField(o, 'created_at'), completed_at: timestampField(o, 'completed_at') };
  if (o.files === undefined && o.bytes === undefined) return m;
  return { ...m, files: countField(o, 'files'), bytes: countField(o, 'bytes') };
}

function countField(o: Record<string, unknown>, name: string): number {
  const n = o[name];
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new ParseError(`cannot parse backup metadata: "${name}" must be a non-negative integer`);
  }
  return n;
}

function timestampField(o: Record<string, unknown>, name: string): string {
  const s = o[name];
  if (typeof s !== 'string' || !RFC3339_RE.test(s) || Number.isNaN(Date.parse(s))) {
    throw new ParseError(`cannot parse backup metadata: "${name}" must be an RFC 3339 timestamp`);
  }
  return s;
}
