import { BackupNotFoundError } from '../errors.ts';
import { COMPLETE_MARKER, formatBackupMetadata, METADATA_MARKER, parseBackupMetadata, type BackupMetadata, type BackupTotals } from '../markers.ts';
import { ProgressTracker } from '../progress.ts';
import type { RemoteFs } from '../remote-fs.ts';
import { checkBackupName } from '../rules/backup-name.ts';
import { partsOf, planSync } from '../sync-plan.ts';
import { executePlan, sum } from './sync-exec.ts';
import { resolveTransfer, type TransferOptions } from './transfer-options.ts';

/** CopyResult reports what copyBackup did. */
export interface CopyResult {
  readonly from: string;
  readonly to: string;
  readonly totalBytes: number;
  readonly totalParts: number;
  readonly copiedParts: number;
  readonly copiedBytes: number;
  readonly keptParts: number;
  readonly deletedFiles: number;
}

/**
 * copyBackup makes folder `to` of `dst` an exact copy of the complete backup `from`, by
 * server-side copies only (this is how `latest` fills `hourly/…`, `daily/…`, …), with the same
 * incremental rule and marker order as backup(): parts already in `to` are kept, extra objects
 * deleted, the complete marker removed first and written last. The copy keeps the source's
 * created_at and file/byte totals. It throws BackupNotFoundError when `from` is not a complete backup.
 */
export async function copyBackup(dst: RemoteFs, from: string, to: string, opts: TransferOptions = {}): Promise<CopyResult> {
  checkBackupName(from);
  checkBackupName(to);
  if (from === to) throw new Error(`cannot copy backup "${from}" onto itself`);
  const t = resolveTransfer(opts);
  if (!(await dst.hasFile(`${from}/${COMPLETE_MARKER}`, t.signal))) {
    throw new BackupNotFoundError(`cannot copy backup "${from}" in ${dst.url}: it does not exist or is not complete`, from);
  }
  const srcFiles = await dst.list(from, t.signal);
  const source = await sourceMetadata(dst, from, t.signal);
  const createdAt = source ? Date.parse(source.created_at) : t.now();
  const wanted = partsOf(from, srcFiles);
  await dst.delete(`${to}/${COMPLETE_MARKER}`, t.signal);
  const existing = await dst.list(to, t.signal);
  const plan = planSync({ backup: to, wanted, existing, origins: new Map([[from, srcFiles]]) });
  const tracker = new ProgressTracker({
    bytesTotal: 0,
    partsTotal: plan.copy.length,
    now: t.now,
    onProgress: opts.onProgress,
    intervalMs: opts.progressIntervalMs,
  });
  const counts = await executePlan(dst, to, plan, t, tracker, undefined);
  tracker.finish();
  await dst.writeFile(`${to}/${METADATA_MARKER}`, formatBackupMetadata(createdAt, t.now(), totalsOf(source)), t.signal);
  await dst.writeFile(`${to}/${COMPLETE_MARKER}`, '', t.signal);
  return {
    from,
    to,
    totalBytes: sum(wanted.map((p) => p.size)),
    totalParts: wanted.length,
    copiedParts: counts.copiedParts,
    copiedBytes: counts.copiedBytes,
    keptParts: plan.keptParts,
    deletedFiles: counts.deletedFiles,
  };
}

// sourceMetadata reads the source's metadata; unreadable metadata must not block the copy,
// which then gets its own time and no totals.
async function sourceMetadata(dst: RemoteFs, from: string, signal?: AbortSignal): Promise<BackupMetadata | undefined> {
  const raw = await dst.readFile(`${from}/${METADATA_MARKER}`, signal);
  if (raw === undefined) return undefined;
  try {
    return parseBackupMetadata(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

// totalsOf carries the source's totals over unchanged: recomputing them from the listing would
// make a damaged source look whole.
function totalsOf(m: BackupMetadata | undefined): BackupTotals | undefined {
  return m?.files === undefined || m.bytes === undefined ? undefined : { files: m.files, bytes: m.bytes };
}
