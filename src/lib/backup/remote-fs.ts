// RemoteFs is the one seam between the backup actions and a storage backend (local directory,
// S3, GCS, Azure Blob). The actions are written only against it, so every backend gets the
// same incremental, verified behaviour, and tests run the actions against the fs backend and
// against a fault-injecting wrapper.
//
// Paths: every path is relative to the RemoteFs root (the `-dst` URL, or a backup URL for a
// restore source), uses '/' as separator, and has no empty, '.' or '..' segments
// (checkRemotePath). Directories are implicit: a directory exists while a file exists under it.
//
// Atomicity: a file becomes visible under its final path only when it is complete. A failed or
// aborted write leaves either the previous file or nothing under that path, never a partial one.
//
// Concurrency: all methods may be called concurrently, on different paths. Concurrent writes to
// the same path are not ordered (the last one wins).

import type { Readable } from 'node:stream';
import { ParseError } from './errors.ts';

/** RemoteFile is one file found by RemoteFs.list. */
export interface RemoteFile {
  /** path relative to the RemoteFs root. */
  readonly path: string;
  /** size in bytes. */
  readonly size: number;
}

/** RemoteFs is a flat store of immutable files addressed by '/'-separated paths. */
export interface RemoteFs {
  /** url is the root as a URL (`fs:///…`, `s3://…`), for messages and restore marks. */
  readonly url: string;

  /**
   * list returns every file under directory `dir` ('' = the whole root), recursively, sorted by
   * path. Files that are still being written (temporary names) are never listed.
   */
  list(dir: string, signal?: AbortSignal): Promise<RemoteFile[]>;

  /**
   * upload stores exactly `size` bytes read from `body` under `path`, replacing any file there.
   * It fails (and stores nothing) when the body yields a different number of bytes.
   */
  upload(path: string, body: Readable, size: number, signal?: AbortSignal): Promise<void>;

  /** copy duplicates `srcPath` to `dstPath` inside this store without moving bytes through us. */
  copy(srcPath: string, dstPath: string, signal?: AbortSignal): Promise<void>;

  /** delete removes `path`; a missing file is not an error. */
  delete(path: string, signal?: AbortSignal): Promise<void>;

  /**
   * read streams the whole file at `path`. A missing file rejects (or errors the stream) with
   * RemoteNotFoundError.
   */
  read(path: string, signal?: AbortSignal): Promise<Readable>;

  /** readFile returns a small file (a marker) whole, or undefined when it does not exist. */
  readFile(path: string, signal?: AbortSignal): Promise<Buffer | undefined>;

  /** writeFile atomically stores a small file (a marker). */
  writeFile(path: string, data: Buffer | string, signal?: AbortSignal): Promise<void>;

  /** hasFile tells whether a file exists at `path`. */
  hasFile(path: string, signal?: AbortSignal): Promise<boolean>;

  /** close releases connections; the RemoteFs must not be used afterwards. */
  close(): Promise<void>;
}

/**
 * checkRemotePath returns `path` when it is a valid relative remote path (non-empty, '/'
 * separated, no empty, '.' or '..' segments, no backslashes or control characters) and throws
 * ParseError otherwise.
 */
export function checkRemotePath(path: string): string {
  if (path === '') throw new ParseError('remote path must not be empty');
  checkSegments(path, `remote path "${path}"`);
  return path;
}

/** checkRemoteDir is checkRemotePath that also accepts '' (the root). */
export function checkRemoteDir(dir: string): string {
  return dir === '' ? dir : checkRemotePath(dir);
}

/** joinRemotePath joins non-empty path pieces with '/' ('' pieces are skipped). */
export function joinRemotePath(...pieces: readonly string[]): string {
  return pieces.filter((p) => p !== '').join('/');
}

/** checkSegments throws ParseError unless `path` is '/'-separated clean segments. */
export function checkSegments(path: string, what: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) {
    throw new ParseError(`${what} must not contain backslashes or control characters`);
  }
  for (const seg of path.split('/')) {
    if (seg === '') throw new ParseError(`${what} must not have empty segments or leading/trailing '/'`);
    if (seg === '.' || seg === '..') throw new ParseError(`${what} must not contain '.' or '..' segments`);
  }
}
