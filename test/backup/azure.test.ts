// The RemoteFs contract and the backup actions against azurite (Azure Blob), started as a
// child process with in-memory storage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AzureRemote, azureOptionsFromEnv, createAzureContainer } from '../../src/lib/backup/azure/index.ts';
import { createRemoteFs } from '../../src/lib/backup/index.ts';
import { describeRemoteFsContract } from '../../src/lib/backup/testing/remote-fs-contract.ts';
import { describeActionsOver } from './actions-suite.ts';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, type RunningServer } from './servers.ts';

let azurite: RunningServer & { connectionString: string };
let n = 0;
beforeAll(async () => {
  azurite = await startAzurite();
  await createAzureContainer({ container: 'backups', prefix: '', connectionString: azurite.connectionString });
});
afterAll(async () => {
  await azurite?.stop();
});

const open = async (prefix: string) =>
  new AzureRemote({ container: 'backups', prefix, connectionString: azurite.connectionString, blockSize: 1024 * 1024 });

describeRemoteFsContract('azure (azurite)', { urlPrefix: 'azblob://backups/', create: () => open(`contract-${n++}/root`) });
describeActionsOver('azure (azurite)', { open });

describe('Azure credentials', () => {
  it('work with an account name and key', async () => {
    const r = await createRemoteFs(`azblob://backups/key-${n++}`, {
      azure: { accountName: AZURITE_ACCOUNT, accountKey: AZURITE_KEY, endpoint: azurite.endpoint },
    });
    await r.writeFile('x', 'y');
    expect(await r.list('')).toEqual([{ path: 'x', size: 1 }]);
  });

  it('are read from the environment', () => {
    const f = (env: Record<string, string>, want: unknown) => expect(azureOptionsFromEnv(env)).toEqual(want);
    f({ AZURE_STORAGE_ACCOUNT_CONNECTION_STRING: 'cs1', AZURE_STORAGE_CONNECTION_STRING: 'cs2' }, { connectionString: 'cs1' });
    f({ AZURE_STORAGE_CONNECTION_STRING: 'cs2' }, { connectionString: 'cs2' });
    f({ AZURE_STORAGE_ACCOUNT_NAME: 'acc', AZURE_STORAGE_ACCOUNT_KEY: 'k' }, { accountName: 'acc', accountKey: 'k', endpoint: 'https://acc.blob.core.windows.net' });
    f({ AZURE_STORAGE_ACCOUNT_NAME: 'acc', AZURE_STORAGE_ACCOUNT_KEY: 'k', AZURE_STORAGE_DOMAIN: 'blob.core.chinacloudapi.cn' }, { accountName: 'acc', accountKey: 'k', endpoint: 'https://acc.blob.core.chinacloudapi.cn' });
    expect(() => azureOptionsFromEnv({ AZURE_STORAGE_ACCOUNT_NAME: 'acc' })).toThrow(/AZURE_STORAGE_ACCOUNT_KEY/);
  });
});
