// createRemoteFs turns a backup URL into the matching RemoteFs. Each cloud backend is loaded
// on demand, so a process that only uses fs:// never loads a cloud SDK.

import type { AzureRemoteOptions } from './azure/azure-options.ts';
import { FsRemote, type FsRemoteOptions } from './fs/index.ts';
import type { GcsRemoteOptions } from './gcs/gcs-options.ts';
import type { RemoteFs } from './remote-fs.ts';
import { parseRemoteUrl, type RemoteUrl } from './remote-url.ts';
import type { S3RemoteOptions } from './s3/s3-options.ts';

/** RemoteFsOptions holds per-backend settings; the location itself comes from the URL. */
export interface RemoteFsOptions {
  readonly fs?: Omit<FsRemoteOptions, 'root'>;
  readonly s3?: Omit<S3RemoteOptions, 'bucket' | 'prefix'>;
  readonly gcs?: Omit<GcsRemoteOptions, 'bucket' | 'prefix'>;
  /** azure must carry credentials (see azureOptionsFromEnv). */
  readonly azure?: Omit<AzureRemoteOptions, 'container' | 'prefix'>;
}

/**
 * createRemoteFs opens the RemoteFs rooted at `url` (a string is parsed with parseRemoteUrl
 * and may throw ParseError). Nothing is contacted until the first call.
 */
export async function createRemoteFs(url: string | RemoteUrl, opts: RemoteFsOptions = {}): Promise<RemoteFs> {
  const u = typeof url === 'string' ? parseRemoteUrl(url) : url;
  switch (u.scheme) {
    case 'fs':
      return new FsRemote({ ...opts.fs, root: u.path });
    case 's3': {
      const { S3Remote } = await import('./s3/index.ts');
      return S3Remote.create({ ...opts.s3, bucket: u.bucket, prefix: u.path });
    }
    case 'gs': {
      const { GcsRemote } = await import('./gcs/index.ts');
      return new GcsRemote({ ...opts.gcs, bucket: u.bucket, prefix: u.path });
    }
    case 'azblob': {
      const { AzureRemote } = await import('./azure/index.ts');
      return new AzureRemote({ ...opts.azure, container: u.bucket, prefix: u.path });
    }
  }
}
