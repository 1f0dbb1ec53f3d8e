// The RemoteFs contract and the backup actions against an S3 protocol server (fauxqs).
import { afterAll, beforeAll } from 'vitest';
import { S3Remote } from '../../src/lib/backup/s3/index.ts';
import { describeRemoteFsContract } from '../../src/lib/backup/testing/remote-fs-contract.ts';
import { describeActionsOver } from './actions-suite.ts';
import { startS3Emulator, type RunningServer } from './servers.ts';

let server: RunningServer;
let n = 0;
beforeAll(async () => {
  server = await startS3Emulator(['backups']);
});
afterAll(async () => {
  await server?.stop();
});

const open = (prefix: string) =>
  S3Remote.create({
    bucket: 'backups',
    prefix,
    endpoint: server.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    // the emulator takes bodies up to 10 MiB per request: multipart chunks at the 5 MiB minimum
    partSize: 5 * 1024 * 1024,
    maxAttempts: 1,
  });

describeRemoteFsContract('s3 (fauxqs)', { urlPrefix: 's3://backups/', create: () => open(`contract-${n++}/root`) });
describeActionsOver('s3 (fauxqs)', { open });
