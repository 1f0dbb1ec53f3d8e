// Options of the S3 backend, kept free of SDK imports so that the app can validate flags
// (`-objStorageClass`) without loading the AWS SDK.

import { ParseError } from '../errors.ts';

/** S3_STORAGE_CLASSES are the values `-objStorageClass` accepts (SPEC). */
export const S3_STORAGE_CLASSES = [
  'GLACIER',
  'DEEP_ARCHIVE',
  'GLACIER_IR',
  'INTELLIGENT_TIERING',
  'ONEZONE_IA',
  'OUTPOSTS',
  'REDUCED_REDUNDANCY',
  'STANDARD',
  'STANDARD_IA',
] as const;

/** S3StorageClass is one of S3_STORAGE_CLASSES. */
export type S3StorageClass = (typeof S3_STORAGE_CLASSES)[number];

/** parseS3StorageClass validates a storage class; '' means "the bucket default" (undefined). */
export function parseS3StorageClass(s: string): S3StorageClass | undefined {
  if (s === '') return undefined;
  if ((S3_STORAGE_CLASSES as readonly string[]).includes(s)) return s as S3StorageClass;
  throw new ParseError(`invalid S3 storage class "${s}"; use one of ${S3_STORAGE_CLASSES.join(', ')}`);
}

/** S3Credentials are static credentials. */
export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

/**
 * S3RemoteOptions configures the S3 backend. Credentials, in order: `credentials`; else the
 * shared-credentials INI file `credsFilePath` and/or config file `configFilePath` with profile
 * `configProfile` (then AWS_PROFILE, then "default"); else the SDK's default chain
 * (environment, default files, web identity, container and instance metadata).
 */
export interface S3RemoteOptions {
  readonly bucket: string;
  /** prefix is the key prefix acting as root, without leading or trailing '/'; '' = bucket root. */
  readonly prefix: string;
  /** region; default: the profile's region in the config file, then AWS_REGION, then us-east-1. */
  readonly region?: string | undefined;
  /** endpoint is a custom endpoint URL for S3-compatible stores (`-customObjEndpoint`). */
  readonly endpoint?: string | undefined;
  /** forcePathStyle puts the bucket in the path instead of the host name; default true (`-objForcePathStyle`). */
  readonly forcePathStyle?: boolean | undefined;
  /** storageClass of uploaded and copied objects (`-objStorageClass`); default: the bucket's. */
  readonly storageClass?: S3StorageClass | undefined;
  readonly credentials?: S3Credentials | undefined;
  /** credsFilePath is an AWS shared-credentials INI file (`-credsFilePath`). */
  readonly credsFilePath?: string | undefined;
  /** configFilePath is an AWS config INI file (`-configFilePath`). */
  readonly configFilePath?: string | undefined;
  /** configProfile is the profile to use in those files (`-configProfile`). */
  readonly configProfile?: string | undefined;
  /**
   * partSize is the multipart chunk size in bytes (≥ 5 MiB); default 8 MiB, the AWS CLI's
   * multipart_chunksize. Backup parts up to this size go in one PUT. Each upload buffers about
   * partSize × (queueSize + 1) bytes, so with `-concurrency` workers memory use is about that
   * times the concurrency (≈ 240 MiB by default); a 1 GiB part is 128 requests.
   */
  readonly partSize?: number | undefined;
  /** queueSize is how many chunks of one upload are sent in parallel; default 2. */
  readonly queueSize?: number | undefined;
  /** maxAttempts bounds SDK retries of a request; default the SDK's (3). */
  readonly maxAttempts?: number | undefined;
  /** env is consulted for AWS_PROFILE and AWS_REGION; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** MIN_S3_PART_SIZE is the smallest multipart chunk S3 accepts. */
export const MIN_S3_PART_SIZE = 5 * 1024 * 1024;
/** DEFAULT_S3_PART_SIZE is the default multipart chunk size. */
export const DEFAULT_S3_PART_SIZE = 8 * 1024 * 1024;
/** DEFAULT_S3_QUEUE_SIZE is the default number of chunks of one upload in flight. */
export const DEFAULT_S3_QUEUE_SIZE = 2;
