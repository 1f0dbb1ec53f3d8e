// RemoteFs on S3 and S3-compatible stores. Uploads go through @aws-sdk/lib-storage: a part
// up to partSize is one PUT, larger ones a multipart upload that is aborted on failure, so an
// object becomes visible only when complete. Copies are server-side CopyObject (parts are at
// most 1 GiB, well under CopyObject's 5 GiB limit).

import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { errorMessage, RemoteNotFoundError } from '../errors.ts';
import { meterStream } from '../metered-stream.ts';
import { checkRemoteDir, checkRemotePath, type RemoteFile, type RemoteFs } from '../remote-fs.ts';
import { formatRemoteUrl } from '../remote-url.ts';
import { resolveS3Credentials, resolveS3Region } from './s3-credentials.ts';
import { DEFAULT_S3_PART_SIZE, DEFAULT_S3_QUEUE_SIZE, MIN_S3_PART_SIZE, type S3RemoteOptions } from './s3-options.ts';

/** S3Remote implements RemoteFs on an S3 bucket under a key prefix. */
export class S3Remote implements RemoteFs {
  readonly url: string;
  readonly #client: S3Client;
  readonly #opts: S3RemoteOptions;
  readonly #partSize: number;

  /** create builds the client from the options (credentials, region, endpoint). */
  static async create(opts: S3RemoteOptions): Promise<S3Remote> {
    const config: S3ClientConfig = {
      region: await resolveS3Region(opts),
      forcePathStyle: opts.forcePathStyle ?? true,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.maxAttempts ? { maxAttempts: opts.maxAttempts } : {}),
    };
    const credentials = resolveS3Credentials(opts);
    return new S3Remote(opts, new S3Client(credentials ? { ...config, credentials } : config));
  }

  constructor(opts: S3RemoteOptions, client: S3Client) {
    this.#opts = opts;
    this.#client = client;
    this.#partSize = Math.max(MIN_S3_PART_SIZE, opts.partSize ?? DEFAULT_S3_PART_SIZE);
    this.url = formatRemoteUrl({ scheme: 's3', bucket: opts.bucket, path: opts.prefix });
  }

  async list(dir: string, signal?: AbortSignal): Promise<RemoteFile[]> {
    checkRemoteDir(dir);
    const root = this.#key('');
    const prefix = dir === '' ? root : `${this.#key(dir)}/`;
    const out: RemoteFile[] = [];
    try {
      let token: string | undefined;
      do {
        const cmd = new ListObjectsV2Command({ Bucket: this.#opts.bucket, Prefix: prefix, ContinuationToken: token });
        const page = await this.#client.send(cmd, { abortSignal: signal });
        for (const o of page.Contents ?? []) {
          if (o.Key === undefined || o.Key.endsWith('/')) continue; // "folder" placeholder objects
          out.push({ path: o.Key.slice(root.length), size: o.Size ?? 0 });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
    } catch (err) {
      throw this.#error('list', dir, err);
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async upload(path: string, body: Readable, size: number, signal?: AbortSignal): Promise<void> {
    const Key = this.#key(checkRemotePath(path));
    const metered = meterStream(body, { expectedBytes: size, what: `object "${Key}"`, signal });
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#opts.bucket, Key, Body: metered, ContentLength: size, StorageClass: this.#opts.storageClass },
      partSize: this.#partSize,
      queueSize: this.#opts.queueSize ?? DEFAULT_S3_QUEUE_SIZE,
      leavePartsOnError: false,
    });
    const onAbort = (): void => void upload.abort().catch(() => {});
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      signal?.throwIfAborted();
      await upload.done();
    } catch (err) {
      metered.destroy();
      throw this.#error('upload', path, err);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async copy(srcPath: string, dstPath: string, signal?: AbortSignal): Promise<void> {
    const src = this.#key(checkRemotePath(srcPath));
    const cmd = new CopyObjectCommand({
      Bucket: this.#opts.bucket,
      Key: this.#key(checkRemotePath(dstPath)),
      CopySource: `${this.#opts.bucket}/${src.split('/').map(encodeURIComponent).join('/')}`,
      StorageClass: this.#opts.storageClass,
    });
    try {
      await this.#client.send(cmd, { abortSignal: signal });
    } catch (err) {
      if (isNotFound(err)) throw new RemoteNotFoundError(`cannot copy ${this.url}/${srcPath}: no such object`, srcPath, { cause: err });
      throw this.#error(`copy to "${dstPath}"`, srcPath, err);
    }
  }

  async delete(path: string, signal?: AbortSignal): Promise<void> {
    const cmd = new DeleteObjectCommand({ Bucket: this.#opts.bucket, Key: this.#key(checkRemotePath(path)) });
    try {
      await this.#client.send(cmd, { abortSignal: signal });
    } catch (err) {
      if (!isNotFound(err)) throw this.#error('delete', path, err);
    }
  }

  async read(path: string, signal?: AbortSignal): Promise<Readable> {
    const cmd = new GetObjectCommand({ Bucket: this.#opts.bucket, Key: this.#key(checkRemotePath(path)) });
    try {
      const res = await this.#client.send(cmd, { abortSignal: signal });
      return res.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new RemoteNotFoundError(`cannot read ${this.url}/${path}: no such object`, path, { cause: err });
      throw this.#error('read', path, err);
    }
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Buffer | undefined> {
    const cmd = new GetObjectCommand({ Bucket: this.#opts.bucket, Key: this.#key(checkRemotePath(path)) });
    try {
      const res = await this.#client.send(cmd, { abortSignal: signal });
      return Buffer.from((await res.Body?.transformToByteArray()) ?? []);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw this.#error('read', path, err);
    }
  }

  async writeFile(path: string, data: Buffer | string, signal?: AbortSignal): Promise<void> {
    const body = typeof data === 'string' ? Buffer.from(data) : data;
    const cmd = new PutObjectCommand({ Bucket: this.#opts.bucket, Key: this.#key(checkRemotePath(path)), Body: body, StorageClass: this.#opts.storageClass });
    try {
      await this.#client.send(cmd, { abortSignal: signal });
    } catch (err) {
      throw this.#error('write', path, err);
    }
  }

  async hasFile(path: string, signal?: AbortSignal): Promise<boolean> {
    const cmd = new HeadObjectCommand({ Bucket: this.#opts.bucket, Key: this.#key(checkRemotePath(path)) });
    try {
      await this.#client.send(cmd, { abortSignal: signal });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw this.#error('check', path, err);
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  #key(path: string): string {
    const p = this.#opts.prefix;
    if (path === '') return p === '' ? '' : `${p}/`;
    return p === '' ? path : `${p}/${path}`;
  }

  #error(op: string, path: string, err: unknown): Error {
    return new Error(`cannot ${op} ${this.url}${path === '' ? '' : `/${path}`}: ${errorMessage(err)}`, { cause: err });
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
