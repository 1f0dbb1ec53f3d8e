import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeSync, existsSync } from 'node:fs';
import { open as openAsync, rename as renameAsync } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorMessage } from './errors.ts';

/** fsyncDir makes a directory's entries (creations, renames, removals) durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * writeFileAtomic replaces path with data so that a crash leaves either the old or the new
 * content: write a temp file beside it, fsync it, rename over path, fsync the directory. The new
 * content gets a new inode, so hard links to the old file (snapshots) keep the old content.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      const buf = typeof data === 'string' ? Buffer.from(data) : data;
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    fsyncDir(dirname(path));
  } catch (err) {
    throw new Error(`cannot write file "${path}": ${errorMessage(err)}`, { cause: err });
  }
}

/** fsyncDirAsync is fsyncDir off the event loop. */
export async function fsyncDirAsync(dir: string): Promise<void> {
  const fh = await openAsync(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** writeFileAtomicAsync is writeFileAtomic off the event loop (same guarantees). */
export async function writeFileAtomicAsync(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.tmp`;
  try {
    const fh = await openAsync(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await renameAsync(tmp, path);
    await fsyncDirAsync(dirname(path));
  } catch (err) {
    throw new Error(`cannot write file "${path}": ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * moveIntoPlace makes a finished part directory durable and moves it from tmp/ to its final
 * name: fsync the part dir (its file entries), rename, fsync the parent. The part is not live
 * until a manifest lists it.
 */
export function moveIntoPlace(tmpDir: string, finalDir: string): void {
  fsyncDir(tmpDir);
  renameSync(tmpDir, finalDir);
  fsyncDir(dirname(finalDir));
}

/** writeFileSynced creates path (which must not exist) with data and fsyncs it. */
export function writeFileSynced(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, 'wx');
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** mkdirp creates dir and its parents; it is fine when dir exists. */
export function mkdirp(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

/** removeDir deletes dir recursively; a missing dir is fine. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** listDirs returns the names of the subdirectories of dir (empty when dir is missing). */
export function listDirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

let nameSeq = 0;

/**
 * newPartName returns a name no other part ever had: 12 hex digits of the wall clock in ms, 4 of
 * a process counter, 8 random. Backups skip files whose path they already hold, so a name must
 * never be reused for different content, not even after a restore.
 */
export function newPartName(): string {
  nameSeq = (nameSeq + 1) & 0xffff;
  return Date.now().toString(16).padStart(12, '0') + nameSeq.toString(16).padStart(4, '0') + process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex');
}

/** PART_NAME_RE matches names made by newPartName. */
export const PART_NAME_RE = /^[0-9a-f]{24}$/;

// writeRange copies up to this many bytes by a loop, more by TypedArray#set.
const SMALL_COPY_BYTES = 64;

/**
 * BufferedFile appends to a new file through a memory buffer, counting bytes. Synchronous: each
 * flush is one write(2) of at most bufferBytes.
 */
export class BufferedFile {
  readonly path: string;
  readonly #fd: number;
  #buf: Buffer;
  #used = 0;
  // A descriptor number is reused by the next open (of any thread): closing it twice could close
  // somebody else's file, the WAL's among them.
  #closed = false;
  /** size is the number of bytes appended so far (flushed or not). */
  size = 0;

  constructor(path: string, bufferBytes = 256 * 1024) {
    this.path = path;
    this.#fd = openSync(path, 'wx');
    this.#buf = Buffer.allocUnsafe(bufferBytes);
  }

  write(data: Uint8Array): void {
    if (data.length > this.#buf.length - this.#used) {
      this.flush();
      if (data.length > this.#buf.length) {
        this.#writeAll(data);
        this.size += data.length;
        return;
      }
    }
    this.#buf.set(data, this.#used);
    this.#used += data.length;
    this.size += data.length;
  }

  /**
   * writeRange appends data[start..end) as write(data.subarray(start, end)) would, without making
   * the view: writers call it per block, most blocks are tens of bytes, and those are copied by a
   * loop (TypedArray#set on a view costs more than the copy there).
   */
  writeRange(data: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (n > SMALL_COPY_BYTES || n > this.#buf.length - this.#used) {
      this.write(data.subarray(start, end));
      return;
    }
    const buf = this.#buf;
    let at = this.#used;
    for (let i = start; i < end; i++) buf[at++] = data[i]!;
    this.#used = at;
    this.size += n;
  }

  flush(): void {
    if (this.#used === 0) return;
    this.#writeAll(this.#buf.subarray(0, this.#used));
    this.#used = 0;
  }

  #writeAll(data: Uint8Array): void {
    let off = 0;
    while (off < data.length) off += writeSync(this.#fd, data, off, data.length - off);
  }

  /** close flushes, fsyncs and closes the file. */
  close(): void {
    if (this.#closed) throw new Error(`cannot close "${this.path}": it is closed`);
    try {
      this.flush();
      fsyncSync(this.#fd);
    } finally {
      this.#closed = true;
      closeSync(this.#fd);
    }
  }

  /** abort closes the file, unless closed already, without caring about its content (the caller removes it). */
  abort(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}
