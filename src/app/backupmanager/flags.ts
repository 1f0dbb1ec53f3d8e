// The backup manager's flags (SPEC "Backup manager flags") and their mapping to options. Only the
// *FromFlags functions read flag values; everything else takes options objects.

import { resolve } from 'node:path';
import {
  ParseError, parseRemoteUrl, parseS3StorageClass, S3_STORAGE_CLASSES, type EnabledIntervals, type KeepLast, type S3StorageClass,
} from '../../lib/backup/index.ts';
import { boolFlag, defaultFlagSet, durationFlag, FlagError, intFlag, sizeFlag, stringFlag, valueFlag } from '../../lib/flags/index.ts';
import type { ObjectStoreOptions } from './remote-access.ts';
import { deriveSnapshotDeleteUrl, parseHttpUrl } from './snapshot-client.ts';

const dst = stringFlag('dst', '', 'Where backups are stored: fs:///<absolute path>, s3://<bucket>/<path> or gs://<bucket>/<path>. Required to serve. ' +
  'A restore mark may also name a full URL of another store (azblob://<container>/<path> included, with AZURE_STORAGE_* credentials)');
const storageDataPath = stringFlag('storageDataPath', 'strata-data', "The storage's data path (must equal the storage's own -storageDataPath): snapshots are read from its snapshots/ folder, " +
  'the restore mark is kept in it, and the restore command restores into it');
const snapshotCreateURL = stringFlag('snapshot.createURL', '', 'URL that creates a storage snapshot, such as http://127.0.0.1:8428/snapshot/create; each backup run makes one. Required to serve');
const snapshotDeleteURL = stringFlag('snapshot.deleteURL', '', 'URL that deletes a snapshot (the name is added as the snapshot query arg); ' +
  'default: -snapshot.createURL with /create replaced by /delete. Every snapshot a run creates is deleted, also when the run fails');
const credsFilePath = stringFlag('credsFilePath', '', 'Credentials file for the object store: an AWS shared-credentials INI file for s3://, a service-account JSON key for gs://; ' +
  "default: the provider's default locations (~/.aws/credentials, GOOGLE_APPLICATION_CREDENTIALS, metadata services)");
const configFilePath = stringFlag('configFilePath', '', 'AWS config file for s3:// (profiles, region); default: ~/.aws/config');
const configProfile = stringFlag('configProfile', '', 'Profile in -credsFilePath/-configFilePath; default: the AWS_PROFILE environment variable, then "default"');
const customObjEndpoint = stringFlag('customObjEndpoint', '', 'Custom endpoint of an S3-compatible store (MinIO, Ceph…) or of a GCS-compatible API, such as http://minio:9000');
const objForcePathStyle = boolFlag('objForcePathStyle', true, 'Whether to put the bucket name in the request path; false prefixes the endpoint host with the bucket name (virtual-hosted style)');
const objStorageClass = valueFlag<S3StorageClass | undefined>('objStorageClass', '', `Storage class of uploaded S3 objects, one of ${S3_STORAGE_CLASSES.join(', ')}; default: the bucket's`,
  parseS3StorageClass, (v) => v ?? '');
const disableHourly = boolFlag('disableHourly', false, 'Whether to turn off hourly backups (hourly/YYYY-MM-DD:HH); runs then happen daily at 00:00 UTC');
const disableDaily = boolFlag('disableDaily', false, 'Whether to turn off daily backups (daily/YYYY-MM-DD)');
const disableWeekly = boolFlag('disableWeekly', false, 'Whether to turn off weekly backups (weekly/YYYY-WW, ISO weeks)');
const disableMonthly = boolFlag('disableMonthly', false, 'Whether to turn off monthly backups (monthly/YYYY-MM)');
const keepLastHourly = intFlag('keepLastHourly', -1, 'Keep the last N hourly backups; -1 turns retention off; 0 deletes all hourly backups at the next retention cycle. Locked backups are kept');
const keepLastDaily = intFlag('keepLastDaily', -1, 'Keep the last N daily backups; -1 turns retention off; 0 deletes all daily backups at the next retention cycle. Locked backups are kept');
const keepLastWeekly = intFlag('keepLastWeekly', -1, 'Keep the last N weekly backups; -1 turns retention off; 0 deletes all weekly backups at the next retention cycle. Locked backups are kept');
const keepLastMonthly = intFlag('keepLastMonthly', -1, 'Keep the last N monthly backups; -1 turns retention off; 0 deletes all monthly backups at the next retention cycle. Locked backups are kept');
const maxBytesPerSecond = sizeFlag('maxBytesPerSecond', '0', 'Maximum upload (and restore download) speed over all workers, in bytes per second; suffixes such as MiB are accepted; 0 = unlimited');
const concurrency = intFlag('concurrency', 10, 'Number of concurrent workers for uploads, server-side copies, deletions and restore downloads');
const runOnStart = boolFlag('runOnStart', false, 'Whether to run a backup at once on start; otherwise the first backup starts at the next full hour');
const apiURL = stringFlag('apiURL', 'http://127.0.0.1:8300', 'Backup manager API address the CLI commands (backup …, restore create|get|delete) call; ' +
  'credentials may be given as http://user:pass@host, else -httpAuth.* are sent');
// GCS clients written in Go dial through S2A (Secure Session Agent) when the platform offers it.
// The Node.js GCS client has no S2A support, so these are accepted for command-line compatibility only.
durationFlag('s2a_timeout', '3s', 'Accepted for compatibility: timeout of the S2A secure-connection handshake of Go GCS clients. The Node.js GCS client does not use S2A, so it has no effect');
boolFlag('s2a_enable_platform_dialer', false, 'Accepted for compatibility: S2A platform-specific dialer of Go GCS clients. The Node.js GCS client does not use S2A, so it has no effect');

/** TransferFlags are the transfer knobs shared by serving and the restore command. */
export interface TransferFlags {
  readonly concurrency: number;
  readonly maxBytesPerSecond: number;
}

/** ServeOptions are what the backup manager server needs. */
export interface ServeOptions extends TransferFlags {
  readonly dst: string;
  /** storageDataPath is absolute. */
  readonly storageDataPath: string;
  readonly snapshotCreateUrl: string;
  readonly snapshotDeleteUrl: string;
  readonly objectStore: ObjectStoreOptions;
  readonly enabled: EnabledIntervals;
  readonly keepLast: KeepLast;
  readonly runOnStart: boolean;
}

/** RestoreCommandFlags are what the restore command needs. */
export interface RestoreCommandFlags extends TransferFlags {
  readonly storageDataPath: string;
  readonly objectStore: ObjectStoreOptions;
}

/** ApiClientFlags are what the API commands of the CLI need. */
export interface ApiClientFlags {
  readonly apiUrl: string;
  readonly basicAuth: { readonly username: string; readonly password: string } | undefined;
}

/** serveOptionsFromFlags reads the flags of the server; it throws FlagError naming a missing or bad one. */
export function serveOptionsFromFlags(env: Readonly<Record<string, string | undefined>> = process.env): ServeOptions {
  if (dst.value === '') throw new FlagError('flag -dst is required, as fs:///var/backups or s3://bucket/path');
  flagCheck('dst', () => parseRemoteUrl(dst.value));
  if (snapshotCreateURL.value === '') throw new FlagError('flag -snapshot.createURL is required, as http://127.0.0.1:8428/snapshot/create');
  flagCheck('snapshot.createURL', () => parseHttpUrl(snapshotCreateURL.value, '-snapshot.createURL'));
  const deleteUrl = snapshotDeleteURL.value !== '' ? snapshotDeleteURL.value : flagCheck('snapshot.deleteURL', () => deriveSnapshotDeleteUrl(snapshotCreateURL.value));
  flagCheck('snapshot.deleteURL', () => parseHttpUrl(deleteUrl, '-snapshot.deleteURL'));
  const keepLast: KeepLast = {
    hourly: keepLastFlag('keepLastHourly', keepLastHourly.value),
    daily: keepLastFlag('keepLastDaily', keepLastDaily.value),
    weekly: keepLastFlag('keepLastWeekly', keepLastWeekly.value),
    monthly: keepLastFlag('keepLastMonthly', keepLastMonthly.value),
  };
  return {
    ...restoreCommandFlags(env),
    dst: dst.value,
    snapshotCreateUrl: snapshotCreateURL.value,
    snapshotDeleteUrl: deleteUrl,
    enabled: { hourly: !disableHourly.value, daily: !disableDaily.value, weekly: !disableWeekly.value, monthly: !disableMonthly.value },
    keepLast,
    runOnStart: runOnStart.value,
  };
}

/** restoreCommandFlags reads the flags of the restore command; it throws FlagError on a bad one. */
export function restoreCommandFlags(env: Readonly<Record<string, string | undefined>> = process.env): RestoreCommandFlags {
  if (concurrency.value < 1) throw new FlagError(`flag -concurrency must be at least 1, got ${concurrency.value}`);
  if (storageDataPath.value === '') throw new FlagError('flag -storageDataPath must not be empty');
  return {
    storageDataPath: resolve(storageDataPath.value),
    concurrency: concurrency.value,
    maxBytesPerSecond: maxBytesPerSecond.value,
    objectStore: {
      credsFilePath: credsFilePath.value,
      configFilePath: configFilePath.value,
      configProfile: configProfile.value,
      customObjEndpoint: customObjEndpoint.value,
      forcePathStyle: objForcePathStyle.value,
      storageClass: objStorageClass.value,
      env,
    },
  };
}

/** apiClientFlags reads -apiURL and the Basic auth credentials the CLI sends. */
export function apiClientFlags(): ApiClientFlags {
  flagCheck('apiURL', () => parseHttpUrl(apiURL.value, '-apiURL'));
  // The CLI usually runs beside a server protected by the same -httpAuth.* flags.
  const username = String(defaultFlagSet.lookup('httpAuth.username')?.value ?? '');
  const password = String(defaultFlagSet.lookup('httpAuth.password')?.value ?? '');
  return { apiUrl: apiURL.value, basicAuth: username === '' ? undefined : { username, password } };
}

function keepLastFlag(name: string, n: number): number {
  if (n < -1) throw new FlagError(`flag -${name} must be -1 (retention off), 0 or a positive count, got ${n}`);
  return n;
}

function flagCheck<T>(name: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ParseError) throw new FlagError(`invalid flag -${name}: ${err.message}`, { cause: err });
    throw err;
  }
}
