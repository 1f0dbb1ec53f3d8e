import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { FsRemote } from './fs/fs-remote.ts';
import { createRemoteFs } from './open-remote.ts';

describe('createRemoteFs', () => {
  it('opens the backend of each scheme at the URL root, without contacting it', async () => {
    const f = async (url: string, want: string) => {
      const r = await createRemoteFs(url, {
        s3: { region: 'us-east-1', endpoint: 'http://127.0.0.1:1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } },
        gcs: { apiEndpoint: 'http://127.0.0.1:1' },
        azure: { connectionString: 'DefaultEndpointsProtocol=http;AccountName=a;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:1/a;' },
      });
      expect(r.url).toBe(want);
      await r.close();
    };
    await f('fs:///var/backups/', 'fs:///var/backups');
    await f('s3://bucket/node-0', 's3://bucket/node-0');
    await f('gs://bucket', 'gs://bucket');
    await f('azblob://container/x/y', 'azblob://container/x/y');
    expect(await createRemoteFs('fs:///tmp/x')).toBeInstanceOf(FsRemote);
  });

  it('rejects bad URLs and missing Azure credentials', async () => {
    await expect(createRemoteFs('nfs://x')).rejects.toBeInstanceOf(ParseError);
    await expect(createRemoteFs('azblob://c/p')).rejects.toThrow(/connection string, or an account name and key/);
  });
});
