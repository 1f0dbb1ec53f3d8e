// How the backup manager opens a backup location: `-dst`, or the full URL in a restore mark,
// with the object-store flags (README of src/lib/backup, "Mapping flags to options").

import { createRemoteFs, parseRemoteUrl, type RemoteFs, type RemoteFsOptions, type S3StorageClass, azureOptionsFromEnv } from '../../lib/backup/index.ts';

/** ObjectStoreOptions are the credential and endpoint flags shared by every cloud backend. */
export interface ObjectStoreOptions {
  /** credsFilePath: AWS shared-credentials INI for s3://, service-account JSON key for gs:// (`-credsFilePath`). */
  readonly credsFilePath: string;
  /** configFilePath: AWS config INI (`-configFilePath`). */
  readonly configFilePath: string;
  /** configProfile: the profile in those files; then AWS_PROFILE, then "default" (`-configProfile`). */
  readonly configProfile: string;
  /** customObjEndpoint: S3-compatible or GCS endpoint URL; '' = the provider's (`-customObjEndpoint`). */
  readonly customObjEndpoint: string;
  /** forcePathStyle: bucket in the path, not the host name (`-objForcePathStyle`). */
  readonly forcePathStyle: boolean;
  /** storageClass of uploaded S3 objects; undefined = the bucket's default (`-objStorageClass`). */
  readonly storageClass: S3StorageClass | undefined;
  /** env supplies Azure credentials (AZURE_STORAGE_*) and AWS_PROFILE/AWS_REGION; normally process.env. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * remoteFsOptionsFor maps the flags to the options of the backend `url` uses. Azure credentials
 * are read from `env` only for azblob:// URLs (and their absence is an error naming the
 * variables); an invalid URL throws ParseError.
 */
export function remoteFsOptionsFor(url: string, o: ObjectStoreOptions): RemoteFsOptions {
  const scheme = parseRemoteUrl(url).scheme;
  const some = (s: string) => (s === '' ? undefined : s);
  switch (scheme) {
    case 'fs':
      return {};
    case 's3':
      return {
        s3: {
          credsFilePath: some(o.credsFilePath),
          configFilePath: some(o.configFilePath),
          configProfile: some(o.configProfile),
          endpoint: some(o.customObjEndpoint),
          forcePathStyle: o.forcePathStyle,
          storageClass: o.storageClass,
          env: o.env,
        },
      };
    case 'gs':
      return { gcs: { credsFilePath: some(o.credsFilePath), apiEndpoint: some(o.customObjEndpoint) } };
    case 'azblob':
      return { azure: azureOptionsFromEnv(o.env) };
  }
}

/** OpenRemote opens a RemoteFs on a backup location URL. */
export type OpenRemote = (url: string) => Promise<RemoteFs>;

/** remoteOpener returns the OpenRemote that applies `o` to every URL it opens. */
export function remoteOpener(o: ObjectStoreOptions): OpenRemote {
  return (url) => createRemoteFs(url, remoteFsOptionsFor(url, o));
}
