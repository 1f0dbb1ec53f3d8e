// RemoteFs on Azure Blob Storage through @azure/storage-blob. Uploads stage blocks and commit
// the block list at the end, so a blob appears only when complete. Copies are server-side
// (Copy Blob within the account, polled to completion).

import { BlobServiceClient, StorageSharedKeyCredential, type ContainerClient } from '@azure/storage-blob';
import type { Readable } from 'node:stream';
import { errorMessage, RemoteNotFoundError } from '../errors.ts';
import { meterStream } from '../metered-stream.ts';
import { checkRemoteDir, checkRemotePath, type RemoteFile, type RemoteFs } from '../remote-fs.ts';
import { formatRemoteUrl } from '../remote-url.ts';
import type { AzureRemoteOptions } from './azure-options.ts';

/** AzureRemote implements RemoteFs on an Azure Blob container under a name prefix. */
export class AzureRemote implements RemoteFs {
  readonly url: string;
  readonly #container: ContainerClient;
  readonly #prefix: string;
  readonly #blockSize: number;
  readonly #concurrency: number;

  constructor(opts: AzureRemoteOptions) {
    this.#container = serviceClient(opts).getContainerClient(opts.container);
    this.#prefix = opts.prefix;
    this.#blockSize = opts.blockSize ?? 8 * 1024 * 1024;
    this.#concurrency = opts.concurrency ?? 2;
    this.url = formatRemoteUrl({ scheme: 'azblob', bucket: opts.container, path: opts.prefix });
  }

  async list(dir: string, signal?: AbortSignal): Promise<RemoteFile[]> {
    checkRemoteDir(dir);
    const root = this.#prefix === '' ? '' : `${this.#prefix}/`;
    const prefix = dir === '' ? root : `${this.#name(dir)}/`;
    const out: RemoteFile[] = [];
    try {
      for await (const b of this.#container.listBlobsFlat({ prefix, abortSignal: signal })) {
        if (b.name.endsWith('/')) continue;
        out.push({ path: b.name.slice(root.length), size: b.properties.contentLength ?? 0 });
      }
    } catch (err) {
      throw this.#error('list', dir, err);
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async upload(path: string, body: Readable, size: number, signal?: AbortSignal): Promise<void> {
    const blob = this.#container.getBlockBlobClient(this.#name(checkRemotePath(path)));
    const metered = meterStream(body, { expectedBytes: size, what: `blob "${blob.name}"`, signal });
    try {
      signal?.throwIfAborted();
      await blob.uploadStream(metered, this.#blockSize, this.#concurrency, {
        abortSignal: signal,
        blobHTTPHeaders: { blobContentType: 'application/octet-stream' },
      });
    } catch (err) {
      metered.destroy();
      throw this.#error('upload', path, err);
    }
  }

  async copy(srcPath: string, dstPath: string, signal?: AbortSignal): Promise<void> {
    const src = this.#container.getBlobClient(this.#name(checkRemotePath(srcPath)));
    const dst = this.#container.getBlobClient(this.#name(checkRemotePath(dstPath)));
    try {
      const poller = await dst.beginCopyFromURL(src.url, { abortSignal: signal });
      await poller.pollUntilDone();
    } catch (err) {
      if (isNotFound(err)) throw new RemoteNotFoundError(`cannot copy ${this.url}/${srcPath}: no such blob`, srcPath, { cause: err });
      throw this.#error(`copy to "${dstPath}"`, srcPath, err);
    }
  }

  async delete(path: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.#container.getBlobClient(this.#name(checkRemotePath(path))).deleteIfExists({ abortSignal: signal });
    } catch (err) {
      throw this.#error('delete', path, err);
    }
  }

  async read(path: string, signal?: AbortSignal): Promise<Readable> {
    const blob = this.#container.getBlobClient(this.#name(checkRemotePath(path)));
    try {
      const res = await blob.download(0, undefined, { abortSignal: signal });
      if (!res.readableStreamBody) throw new Error('the response has no body');
      return res.readableStreamBody as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new RemoteNotFoundError(`cannot read ${this.url}/${path}: no such blob`, path, { cause: err });
      throw this.#error('read', path, err);
    }
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Buffer | undefined> {
    try {
      return await this.#container.getBlobClient(this.#name(checkRemotePath(path))).downloadToBuffer(0, undefined, { abortSignal: signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw this.#error('read', path, err);
    }
  }

  async writeFile(path: string, data: Buffer | string, signal?: AbortSignal): Promise<void> {
    const body = typeof data === 'string' ? Buffer.from(data) : data;
    try {
      await this.#container.getBlockBlobClient(this.#name(checkRemotePath(path))).uploadData(body, { abortSignal: signal });
    } catch (err) {
      throw this.#error('write', path, err);
    }
  }

  async hasFile(path: string, signal?: AbortSignal): Promise<boolean> {
    try {
      return await this.#container.getBlobClient(this.#name(checkRemotePath(path))).exists({ abortSignal: signal });
    } catch (err) {
      throw this.#error('check', path, err);
    }
  }

  async close(): Promise<void> {}

  #name(path: string): string {
    return this.#prefix === '' ? path : `${this.#prefix}/${path}`;
  }

  #error(op: string, path: string, err: unknown): Error {
    return new Error(`cannot ${op} ${this.url}${path === '' ? '' : `/${path}`}: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * createAzureContainer creates the container of `opts` when it does not exist (for setup
 * tooling and tests; backups expect the container to exist).
 */
export async function createAzureContainer(opts: AzureRemoteOptions): Promise<void> {
  try {
    await serviceClient(opts).getContainerClient(opts.container).createIfNotExists();
  } catch (err) {
    throw new Error(`cannot create container azblob://${opts.container}: ${errorMessage(err)}`, { cause: err });
  }
}

function serviceClient(opts: AzureRemoteOptions): BlobServiceClient {
  if (opts.connectionString) return BlobServiceClient.fromConnectionString(opts.connectionString);
  if (!opts.accountName || !opts.accountKey) {
    throw new Error(`cannot open azblob://${opts.container}: give a connection string, or an account name and key`);
  }
  const endpoint = opts.endpoint ?? `https://${opts.accountName}.blob.core.windows.net`;
  return new BlobServiceClient(endpoint, new StorageSharedKeyCredential(opts.accountName, opts.accountKey));
}

function isNotFound(err: unknown): boolean {
  const e = err as { statusCode?: number; code?: string } | undefined;
  return e?.statusCode === 404 || e?.code === 'BlobNotFound' || e?.code === 'CannotVerifyCopySource';
}
