// RemoteFs on Google Cloud Storage through @google-cloud/storage. Small objects go in one
// multipart request, larger ones through a resumable session; either way the object appears
// only when the upload completes, and the SDK checks the CRC32C the server reports. Copies
// use the server-side rewrite API.

import { Storage, type Bucket, type GetFilesResponse } from '@google-cloud/storage';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorMessage, RemoteNotFoundError } from '../errors.ts';
import { meterStream } from '../metered-stream.ts';
import { checkRemoteDir, checkRemotePath, type RemoteFile, type RemoteFs } from '../remote-fs.ts';
import { formatRemoteUrl } from '../remote-url.ts';
import { DEFAULT_GCS_RESUMABLE_THRESHOLD, type GcsRemoteOptions } from './gcs-options.ts';

/** GcsRemote implements RemoteFs on a GCS bucket under an object-name prefix. */
export class GcsRemote implements RemoteFs {
  readonly url: string;
  readonly #bucket: Bucket;
  readonly #prefix: string;
  readonly #resumableThreshold: number;
  readonly #chunkSize: number | undefined;

  constructor(opts: GcsRemoteOptions) {
    const storage = new Storage({
      ...(opts.credsFilePath ? { keyFilename: opts.credsFilePath } : {}),
      ...(opts.projectId ? { projectId: opts.projectId } : {}),
      ...(opts.apiEndpoint ? { apiEndpoint: opts.apiEndpoint } : {}),
      // The SDK sends no credentials to a custom endpoint (emulators); a key file means the
      // endpoint is a real, authenticated service.
      ...(opts.apiEndpoint && opts.credsFilePath ? { useAuthWithCustomEndpoint: true } : {}),
      ...(opts.maxRetries !== undefined ? { retryOptions: { maxRetries: opts.maxRetries } } : {}),
    });
    this.#bucket = storage.bucket(opts.bucket);
    this.#prefix = opts.prefix;
    this.#resumableThreshold = opts.resumableThreshold ?? DEFAULT_GCS_RESUMABLE_THRESHOLD;
    this.#chunkSize = opts.chunkSize;
    this.url = formatRemoteUrl({ scheme: 'gs', bucket: opts.bucket, path: opts.prefix });
  }

  async list(dir: string, signal?: AbortSignal): Promise<RemoteFile[]> {
    checkRemoteDir(dir);
    const root = this.#prefix === '' ? '' : `${this.#prefix}/`;
    const prefix = dir === '' ? root : `${this.#name(dir)}/`;
    const out: RemoteFile[] = [];
    try {
      let query: { prefix: string; pageToken?: string; autoPaginate: false } | undefined = { prefix, autoPaginate: false };
      while (query) {
        signal?.throwIfAborted();
        const res: GetFilesResponse = await this.#bucket.getFiles(query);
        const [files, next] = res;
        for (const f of files) {
          if (f.name.endsWith('/')) continue; // "folder" placeholder objects
          out.push({ path: f.name.slice(root.length), size: Number(f.metadata.size ?? 0) });
        }
        const token: string | undefined = (next as { pageToken?: string } | null | undefined)?.pageToken;
        query = token ? { prefix, pageToken: token, autoPaginate: false } : undefined;
      }
    } catch (err) {
      throw this.#error('list', dir, err);
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async upload(path: string, body: Readable, size: number, signal?: AbortSignal): Promise<void> {
    const name = this.#name(checkRemotePath(path));
    const metered = meterStream(body, { expectedBytes: size, what: `object "${name}"`, signal });
    const ws = this.#bucket.file(name).createWriteStream({
      resumable: size >= this.#resumableThreshold,
      ...(this.#chunkSize ? { chunkSize: this.#chunkSize } : {}),
      metadata: { contentType: 'application/octet-stream' },
      validation: 'crc32c',
    });
    try {
      await pipeline(metered, ws, signal ? { signal } : {});
    } catch (err) {
      throw this.#error('upload', path, err);
    }
  }

  async copy(srcPath: string, dstPath: string, signal?: AbortSignal): Promise<void> {
    const src = this.#bucket.file(this.#name(checkRemotePath(srcPath)));
    const dst = this.#bucket.file(this.#name(checkRemotePath(dstPath)));
    signal?.throwIfAborted();
    try {
      await src.copy(dst);
    } catch (err) {
      if (isNotFound(err)) throw new RemoteNotFoundError(`cannot copy ${this.url}/${srcPath}: no such object`, srcPath, { cause: err });
      throw this.#error(`copy to "${dstPath}"`, srcPath, err);
    }
  }

  async delete(path: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    try {
      await this.#bucket.file(this.#name(checkRemotePath(path))).delete({ ignoreNotFound: true });
    } catch (err) {
      throw this.#error('delete', path, err);
    }
  }

  async read(path: string, signal?: AbortSignal): Promise<Readable> {
    signal?.throwIfAborted();
    const rs = this.#bucket.file(this.#name(checkRemotePath(path))).createReadStream();
    // The SDK reports a missing object as a stream error; translate it so callers can branch.
    const out = new PassThrough();
    rs.on('error', (err) => {
      out.destroy(isNotFound(err) ? new RemoteNotFoundError(`cannot read ${this.url}/${path}: no such object`, path, { cause: err }) : this.#error('read', path, err));
    });
    const onAbort = (): void => {
      out.destroy(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    out.on('close', () => {
      signal?.removeEventListener('abort', onAbort);
      rs.destroy();
    });
    return rs.pipe(out);
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Buffer | undefined> {
    signal?.throwIfAborted();
    try {
      const [data] = await this.#bucket.file(this.#name(checkRemotePath(path))).download();
      return data;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw this.#error('read', path, err);
    }
  }

  async writeFile(path: string, data: Buffer | string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    try {
      await this.#bucket.file(this.#name(checkRemotePath(path))).save(typeof data === 'string' ? Buffer.from(data) : data, {
        resumable: false,
        metadata: { contentType: 'application/octet-stream' },
      });
    } catch (err) {
      throw this.#error('write', path, err);
    }
  }

  async hasFile(path: string, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    try {
      const [exists] = await this.#bucket.file(this.#name(checkRemotePath(path))).exists();
      return exists;
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

function isNotFound(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 404;
}
