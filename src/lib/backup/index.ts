// Package backup: incremental backups of a directory of immutable files (a TSDB snapshot) to
// fs://, s3://, gs:// and azblob:// destinations, restore, retention, scheduling rules and
// restore marks. See remote-fs.ts for the RemoteFs contract and DECISIONS.md "Backup manager"
// for the object layout.

export * from './errors.ts';
export * from './remote-fs.ts';
export * from './remote-url.ts';
export * from './part.ts';
export * from './markers.ts';
export * from './clock.ts';
export * from './progress.ts';
export * from './throttle.ts';
export * from './data-dir-lock.ts';
export * from './restore-plan.ts';
export { createRemoteFs, type RemoteFsOptions } from './open-remote.ts';
export { FsRemote, type FsRemoteOptions } from './fs/index.ts';
export type { S3RemoteOptions, S3StorageClass } from './s3/s3-options.ts';
export { S3_STORAGE_CLASSES, parseS3StorageClass } from './s3/s3-options.ts';
export type { GcsRemoteOptions } from './gcs/gcs-options.ts';
export type { AzureRemoteOptions } from './azure/azure-options.ts';
export { azureOptionsFromEnv } from './azure/azure-options.ts';
export * from './rules/interval-name.ts';
export * from './rules/backup-name.ts';
export * from './rules/schedule.ts';
export * from './rules/retention.ts';
export * from './rules/human-size.ts';
export * from './actions/transfer-options.ts';
export { backup, DEFAULT_SKIP_ROOT_NAMES, type BackupOptions, type BackupResult } from './actions/backup.ts';
export { copyBackup, type CopyResult } from './actions/copy-backup.ts';
export { restore, type RestoreOptions, type RestoreResult } from './actions/restore.ts';
export * from './actions/restore-mark.ts';
export * from './actions/backups.ts';
