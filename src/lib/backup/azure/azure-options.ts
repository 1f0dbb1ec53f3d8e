// Options of the Azure Blob backend (`azblob://container/path`) and their environment
// mapping. Credentials come from the environment, as for vmbackup and the Azure CLI:
//   AZURE_STORAGE_ACCOUNT_CONNECTION_STRING or AZURE_STORAGE_CONNECTION_STRING — a connection string; or
//   AZURE_STORAGE_ACCOUNT_NAME + AZURE_STORAGE_ACCOUNT_KEY — shared key, with the service at
//   https://<name>.<AZURE_STORAGE_DOMAIN, default blob.core.windows.net>.

/** AzureRemoteOptions configures the Azure Blob backend; give a connection string or account name and key. */
export interface AzureRemoteOptions {
  readonly container: string;
  /** prefix is the blob-name prefix acting as root, without leading or trailing '/'; '' = container root. */
  readonly prefix: string;
  readonly connectionString?: string | undefined;
  readonly accountName?: string | undefined;
  readonly accountKey?: string | undefined;
  /** endpoint is the blob service URL; default https://<accountName>.blob.core.windows.net. */
  readonly endpoint?: string | undefined;
  /** blockSize is the staged block size of uploads in bytes; default 8 MiB. Each upload buffers about blockSize × concurrency. */
  readonly blockSize?: number | undefined;
  /** concurrency is how many blocks of one upload are staged in parallel; default 2. */
  readonly concurrency?: number | undefined;
}

/** AzureCredentialOptions are the credential fields of AzureRemoteOptions. */
export type AzureCredentialOptions = Pick<AzureRemoteOptions, 'connectionString' | 'accountName' | 'accountKey' | 'endpoint'>;

/**
 * azureOptionsFromEnv maps the environment (pass process.env) to credential options. It
 * throws an error naming the variables when no credentials are configured.
 */
export function azureOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): AzureCredentialOptions {
  const connectionString = env.AZURE_STORAGE_ACCOUNT_CONNECTION_STRING || env.AZURE_STORAGE_CONNECTION_STRING;
  if (connectionString) return { connectionString };
  const accountName = env.AZURE_STORAGE_ACCOUNT_NAME;
  const accountKey = env.AZURE_STORAGE_ACCOUNT_KEY;
  if (accountName && accountKey) {
    const domain = env.AZURE_STORAGE_DOMAIN || 'blob.core.windows.net';
    return { accountName, accountKey, endpoint: `https://${accountName}.${domain}` };
  }
  throw new Error(
    'cannot find Azure Blob credentials: set AZURE_STORAGE_ACCOUNT_CONNECTION_STRING (or AZURE_STORAGE_CONNECTION_STRING), ' +
      'or AZURE_STORAGE_ACCOUNT_NAME and AZURE_STORAGE_ACCOUNT_KEY',
  );
}
