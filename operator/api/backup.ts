// The `backup` section of TSDBSingle and of TSDBCluster's storage: a backupmanager sidecar next to
// each storage Pod, and optionally an init container that restores a marked backup on start.
import { bool, describe, int, obj, str } from './schema.ts';
import type { Static } from './schema.ts';
import { extraArgs, extraEnv, image, resources, secretKeyRef } from './common.ts';

const keepLast = (interval: string) =>
  int({ description: `Keep the last N ${interval} backups; -1 disables retention, 0 deletes all of them.`, minimum: -1, default: -1, example: 7 });

/** backupRetention is the keepLast* settings. */
export const backupRetention = obj(
  {
    keepLastHourly: keepLast('hourly'),
    keepLastDaily: keepLast('daily'),
    keepLastWeekly: keepLast('weekly'),
    keepLastMonthly: keepLast('monthly'),
  },
  { description: 'Retention per interval (backupmanager -keepLast* flags).', defaultEmpty: true },
);

/** backupIntervals toggles the interval folders. */
export const backupIntervals = obj(
  {
    hourly: bool({ description: 'Make hourly backups.', default: true }),
    daily: bool({ description: 'Make daily backups.', default: true }),
    weekly: bool({ description: 'Make weekly backups.', default: true }),
    monthly: bool({ description: 'Make monthly backups.', default: true }),
  },
  { description: 'Which interval folders are kept besides latest (backupmanager -disable* flags).', defaultEmpty: true },
);

/** backupRestore holds restore.onStart. */
export const backupRestore = obj(
  {
    onStart: bool({
      description:
        'Add an init container running `backupmanager restore` before the storage starts; it restores only when a restore mark exists in the data directory and does nothing otherwise.',
      default: false,
    }),
  },
  { description: 'Restore settings.', defaultEmpty: true },
);

/** backup is the schema of a backup section. */
export const backup = obj(
  {
    image: describe(image, { description: 'Image of the backup sidecar and the restore init container; fields left empty keep the recorded image (status.resolvedImages.backup), or take the operator default (-image.backupmanager) when the sidecar is new.' }),
    destination: str({
      description:
        'Root backup folder (-dst): s3://bucket/path, gs://bucket/path, azblob://container/path or fs:///path. In a cluster each storage Pod writes under <destination>/<pod name>.',
      pattern: '^(s3|gs|azblob|fs)://.+$',
      maxLength: 1024,
      example: 's3://metrics-backups/prod',
    }),
    credentialsSecret: describe(secretKeyRef, {
      description: 'Secret key holding the object store credentials file (-credsFilePath); without it the store\'s default credential chain is used.',
    }),
    customS3Endpoint: str({ description: 'Endpoint of an S3-compatible store (-customObjEndpoint).', format: 'uri', maxLength: 1024, example: 'http://minio.storage:9000' }),
    s3ForcePathStyle: bool({ description: 'Path-style S3 addressing (-objForcePathStyle).', default: true }),
    intervals: backupIntervals,
    retention: backupRetention,
    concurrency: int({ description: 'Concurrent upload workers (-concurrency).', minimum: 1, maximum: 256, default: 10 }),
    maxBytesPerSecond: int({ description: 'Upload rate limit in bytes per second (-maxBytesPerSecond); 0 is unlimited.', minimum: 0, default: 0 }),
    runOnStart: bool({ description: 'Back up as soon as the sidecar starts (-runOnStart).', default: false }),
    resources: describe(resources, { description: 'Compute resources of the backup sidecar and the restore init container.' }),
    extraArgs: describe(extraArgs, { description: 'Extra backupmanager flags as name: value (-name=value); they override the flags the operator sets.', example: { objStorageClass: 'STANDARD_IA' } }),
    extraEnv: describe(extraEnv, { description: 'Extra environment of the backup containers (for example AWS_REGION).', example: [{ name: 'AWS_REGION', value: 'eu-west-1' }] }),
    restore: backupRestore,
  },
  {
    description: 'Scheduled backups by a backupmanager sidecar that shares the data volume of each storage Pod.',
    required: ['destination'],
    rules: [
      { rule: "!has(self.customS3Endpoint) || self.destination.startsWith('s3://')", message: 'customS3Endpoint applies only to s3:// destinations' },
      { rule: "!self.destination.startsWith('fs://') || self.destination.startsWith('fs:///')", message: 'fs destinations are absolute: fs:///path' },
    ],
  },
);
/** BackupSpec is a defaulted backup section. */
export type BackupSpec = Static<typeof backup>;
