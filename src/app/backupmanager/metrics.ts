import { counter, gauge, summary } from '../../lib/metrics/index.ts';

// The backup manager's metrics (issue 6 item 5, prefix backupmanager_). `type` is the backup
// kind: latest, hourly, daily, weekly, monthly. Errors are counted by the step that failed.

/** BackupType is the `type` label: `latest` or an interval. */
export type BackupType = 'latest' | 'hourly' | 'daily' | 'weekly' | 'monthly';

/** ErrorStep is the `step` label of backupmanager_errors_total. */
export type ErrorStep = BackupType | 'snapshot_create' | 'snapshot_delete' | 'retention' | 'restore';

const lastSuccess = gauge('backupmanager_last_success_timestamp_seconds', 'Unix time when the last backup of this type completed', ['type']);
const lastFailed = gauge('backupmanager_last_run_failed', '1 when the last backup of this type failed, 0 when it succeeded', ['type']);
const errors = counter('backupmanager_errors_total', 'Failed steps of backup runs and restores, by step', ['step']);
const uploaded = counter('backupmanager_bytes_uploaded_total', 'Bytes of backup parts uploaded to the destination');
const downloaded = counter('backupmanager_bytes_downloaded_total', 'Bytes of backup parts downloaded by restores');
const copied = counter('backupmanager_bytes_server_side_copied_total', 'Bytes of backup parts copied inside the destination (server-side), not through this process');
const inProgress = gauge('backupmanager_backup_in_progress', '1 while a backup run is in progress');
const duration = summary('backupmanager_backup_duration_seconds', 'Duration of successful backups (latest) and interval copies, by type', ['type']);
const runs = counter('backupmanager_runs_total', 'Backup runs started, by what started them', ['trigger']);

/** initBackupMetrics exposes every series of `types` at 0, so dashboards see them before the first run. */
export function initBackupMetrics(types: readonly BackupType[]): void {
  inProgress.set(0);
  for (const type of types) {
    lastFailed.set({ type }, 0);
    lastSuccess.set({ type }, 0);
  }
}

/** recordRunStarted counts a run and sets backup-in-progress. */
export function recordRunStarted(trigger: string): void {
  runs.inc({ trigger });
  inProgress.set(1);
}

/** recordRunFinished clears backup-in-progress. */
export function recordRunFinished(): void {
  inProgress.set(0);
}

/** recordSuccess marks a backup of `type` completed at `atMs` after `durationMs`. */
export function recordSuccess(type: BackupType, atMs: number, durationMs: number): void {
  lastSuccess.set({ type }, atMs / 1000);
  lastFailed.set({ type }, 0);
  duration.observe({ type }, durationMs / 1000);
}

/** recordFailure marks the last backup of `type` failed and counts the error. */
export function recordFailure(type: BackupType): void {
  lastFailed.set({ type }, 1);
  errors.inc({ step: type });
}

/** recordError counts a failed step that is not a backup of its own (snapshot, retention, restore). */
export function recordError(step: ErrorStep): void {
  errors.inc({ step });
}

/** addUploadedBytes, addDownloadedBytes and addCopiedBytes count transferred bytes. */
export function addUploadedBytes(n: number): void {
  if (n > 0) uploaded.inc(n);
}

export function addDownloadedBytes(n: number): void {
  if (n > 0) downloaded.inc(n);
}

export function addCopiedBytes(n: number): void {
  if (n > 0) copied.inc(n);
}
