/**
 * GcsRemoteOptions configures the GCS backend. Credentials: the service-account JSON key file
 * `credsFilePath`; else Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud
 * user credentials, the metadata server). With a custom `apiEndpoint` requests are sent without
 * authentication (an emulator) unless `credsFilePath` is also given.
 */
export interface GcsRemoteOptions {
  readonly bucket: string;
  /** prefix is the object-name prefix acting as root, without leading or trailing '/'; '' = bucket root. */
  readonly prefix: string;
  /** credsFilePath is a service-account JSON key file (`-credsFilePath`). */
  readonly credsFilePath?: string | undefined;
  readonly projectId?: string | undefined;
  /** apiEndpoint replaces https://storage.googleapis.com (`-customObjEndpoint`, tests). */
  readonly apiEndpoint?: string | undefined;
  /** resumableThreshold: uploads of at least this many bytes use resumable sessions; default 8 MiB. */
  readonly resumableThreshold?: number | undefined;
  /**
   * chunkSize splits resumable uploads into requests of this many bytes (a multiple of
   * 256 KiB), each retried on its own; default: one request per upload. Each chunk is buffered.
   */
  readonly chunkSize?: number | undefined;
  /** maxRetries bounds the SDK's retries of idempotent requests; default the SDK's (3). */
  readonly maxRetries?: number | undefined;
}

/** DEFAULT_GCS_RESUMABLE_THRESHOLD is the default resumableThreshold. */
export const DEFAULT_GCS_RESUMABLE_THRESHOLD = 8 * 1024 * 1024;
