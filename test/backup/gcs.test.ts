// The RemoteFs contract and the backup actions against our GCS JSON-API fake, with small list
// pages and a low resumable threshold so pagination and resumable sessions are exercised.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GcsRemote } from '../../src/lib/backup/gcs/index.ts';
import { bodyOf, describeRemoteFsContract } from '../../src/lib/backup/testing/remote-fs-contract.ts';
import { startGcsFake, type GcsFake } from '../fakes/gcs/index.ts';
import { describeActionsOver } from './actions-suite.ts';

let fake: GcsFake;
let n = 0;
beforeAll(async () => {
  fake = await startGcsFake({ buckets: ['backups'], pageSize: 3 });
});
afterAll(async () => {
  await fake?.stop();
});

const open = async (prefix: string) =>
  new GcsRemote({ bucket: 'backups', prefix, apiEndpoint: fake.endpoint, resumableThreshold: 64 * 1024, maxRetries: 0 });

describeRemoteFsContract('gcs (fake)', { urlPrefix: 'gs://backups/', create: () => open(`contract-${n++}/root`) });
describeActionsOver('gcs (fake)', { open });

it('uses resumable sessions for large parts and simple uploads for small ones', async () => {
  const r = await open(`modes-${n++}`);
  fake.requests.length = 0;
  await r.upload('small', bodyOf(Buffer.alloc(10)), 10);
  await r.upload('large', bodyOf(Buffer.alloc(100_000)), 100_000);
  const uploads = fake.requests.filter((q) => q.includes('/upload/'));
  expect(uploads.some((q) => q.startsWith('POST') && q.includes('uploadType=multipart'))).toBe(true);
  expect(uploads.some((q) => q.startsWith('POST') && q.includes('uploadType=resumable'))).toBe(true);
  expect(uploads.some((q) => q.startsWith('PUT') && q.includes('upload_id='))).toBe(true);
  expect(await r.list('')).toEqual([{ path: 'large', size: 100_000 }, { path: 'small', size: 10 }]);
});

it('uploads in chunks of a resumable session', async () => {
  const r = new GcsRemote({ bucket: 'backups', prefix: `chunks-${n++}`, apiEndpoint: fake.endpoint, resumableThreshold: 1, chunkSize: 256 * 1024 });
  const data = Buffer.alloc(600_000, 7);
  fake.requests.length = 0;
  await r.upload('big', bodyOf(data), data.length);
  const ranges = fake.requests.filter((q) => q.includes('content-range=')).map((q) => q.slice(q.indexOf('content-range=') + 14));
  expect(ranges).toEqual(['bytes 0-262143/*', 'bytes 262144-524287/*', 'bytes 524288-599999/600000']);
  expect(await r.list('')).toEqual([{ path: 'big', size: 600_000 }]);
});
