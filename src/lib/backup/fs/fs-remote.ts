// RemoteFs on a local directory (`fs:///path`): a mounted volume, NFS share, or tests.
// Writes go to a temporary dot-file beside the target, are fsynced, then renamed over it, so a
// crash never leaves a partial file under a final name. Server-side copy is a hard link (parts
// are immutable and never rewritten in place, so sharing an inode is safe), falling back to a
// byte copy when the filesystem cannot link (other device, no hard-link support).

import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, readFile, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { errorMessage, RemoteNotFoundError } from '../errors.ts';
import { checkRemoteDir, checkRemotePath, type RemoteFile, type RemoteFs } from '../remote-fs.ts';
import { formatRemoteUrl } from '../remote-url.ts';

/** FsRemoteOptions configures an FsRemote. */
export interface FsRemoteOptions {
  /** root is the absolute local directory acting as the RemoteFs root; created on first write. */
  readonly root: string;
  /** fsync flushes every written file to disk before it is renamed into place; default true. */
  readonly fsync?: boolean;
}

const TEMP_RE = /^\..+\.tmp-[0-9a-f]{16}$/;
const LINK_FALLBACK_CODES = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/** FsRemote implements RemoteFs on a local directory. */
export class FsRemote implements RemoteFs {
  readonly url: string;
  readonly #root: string;
  readonly #fsync: boolean;

  constructor(opts: FsRemoteOptions) {
    if (!isAbsolute(opts.root)) throw new Error(`cannot use "${opts.root}" as a backup directory: the path must be absolute`);
    this.#root = opts.root;
    this.#fsync = opts.fsync ?? true;
    this.url = formatRemoteUrl({ scheme: 'fs', bucket: '', path: opts.root.replace(/\/+$/, '') || '/' });
  }

  async list(dir: string, signal?: AbortSignal): Promise<RemoteFile[]> {
    checkRemoteDir(dir);
    const out: RemoteFile[] = [];
    await this.#walk(dir, out, signal);
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async #walk(rel: string, out: RemoteFile[], signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const abs = this.#abs(rel);
    let entries;
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch (err) {
      if (code(err) === 'ENOENT' || code(err) === 'ENOTDIR') return;
      throw new Error(`cannot list "${abs}": ${errorMessage(err)}`, { cause: err });
    }
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) await this.#walk(child, out, signal);
      else if (e.isFile() && !TEMP_RE.test(e.name)) out.push({ path: child, size: (await stat(join(abs, e.name))).size });
    }
  }

  async upload(path: string, body: Readable, size: number, signal?: AbortSignal): Promise<void> {
    const target = this.#abs(checkRemotePath(path));
    await this.#writeAtomically(target, async (temp) => {
      await pipeline(body, createWriteStream(temp, { flags: 'wx' }), { signal });
      const got = (await stat(temp)).size;
      if (got !== size) throw new Error(`got ${got} bytes, expected ${size}`);
    }).catch((err: unknown) => {
      body.destroy();
      throw new Error(`cannot upload "${target}": ${errorMessage(err)}`, { cause: err });
    });
  }

  async copy(srcPath: string, dstPath: string, signal?: AbortSignal): Promise<void> {
    const src = this.#abs(checkRemotePath(srcPath));
    const dst = this.#abs(checkRemotePath(dstPath));
    signal?.throwIfAborted();
    try {
      await this.#writeAtomically(dst, async (temp) => {
        try {
          await link(src, temp);
        } catch (err) {
          if (!LINK_FALLBACK_CODES.has(code(err) ?? '')) throw err;
          await copyFile(src, temp);
        }
      }, false);
    } catch (err) {
      if (code(err) === 'ENOENT' && !(await isFile(src))) {
        throw new RemoteNotFoundError(`cannot copy "${src}": no such file`, srcPath, { cause: err });
      }
      throw new Error(`cannot copy "${src}" to "${dst}": ${errorMessage(err)}`, { cause: err });
    }
  }

  async delete(path: string, signal?: AbortSignal): Promise<void> {
    const abs = this.#abs(checkRemotePath(path));
    signal?.throwIfAborted();
    try {
      await unlink(abs);
    } catch (err) {
      if (code(err) === 'ENOENT') return;
      throw new Error(`cannot delete "${abs}": ${errorMessage(err)}`, { cause: err });
    }
    await this.#pruneEmptyParents(path);
  }

  async read(path: string, signal?: AbortSignal): Promise<Readable> {
    const abs = this.#abs(checkRemotePath(path));
    signal?.throwIfAborted();
    try {
      const fh = await open(abs, 'r');
      return fh.createReadStream({ signal });
    } catch (err) {
      if (code(err) === 'ENOENT') throw new RemoteNotFoundError(`cannot read "${abs}": no such file`, path, { cause: err });
      throw new Error(`cannot read "${abs}": ${errorMessage(err)}`, { cause: err });
    }
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Buffer | undefined> {
    const abs = this.#abs(checkRemotePath(path));
    try {
      return await readFile(abs, { signal });
    } catch (err) {
      if (code(err) === 'ENOENT') return undefined;
      throw new Error(`cannot read "${abs}": ${errorMessage(err)}`, { cause: err });
    }
  }

  async writeFile(path: string, data: Buffer | string, signal?: AbortSignal): Promise<void> {
    const target = this.#abs(checkRemotePath(path));
    await this.#writeAtomically(target, (temp) => writeFile(temp, data, { flag: 'wx', signal })).catch((err: unknown) => {
      throw new Error(`cannot write "${target}": ${errorMessage(err)}`, { cause: err });
    });
  }

  async hasFile(path: string): Promise<boolean> {
    return isFile(this.#abs(checkRemotePath(path)));
  }

  async close(): Promise<void> {}

  #abs(rel: string): string {
    return rel === '' ? this.#root : join(this.#root, ...rel.split('/'));
  }

  // writeAtomically runs `fill(temp)` on a fresh temporary name in the target's directory and
  // renames it over the target; the temporary file is removed on failure.
  async #writeAtomically(target: string, fill: (temp: string) => Promise<void>, sync = this.#fsync): Promise<void> {
    const dir = dirname(target);
    const temp = join(dir, `.${target.slice(dir.length + 1)}.tmp-${randomBytes(8).toString('hex')}`);
    // A concurrent delete may prune the directory between mkdir and the write; retry then.
    for (let attempt = 1; ; attempt++) {
      await mkdir(dir, { recursive: true });
      try {
        await fill(temp);
        break;
      } catch (err) {
        await unlink(temp).catch(() => {});
        if (code(err) !== 'ENOENT' || attempt >= 3 || (await isDir(dir))) throw err;
      }
    }
    try {
      if (sync) await fsyncFile(temp);
      await rename(temp, target);
    } catch (err) {
      await unlink(temp).catch(() => {});
      throw err;
    }
  }

  // pruneEmptyParents removes now-empty directories above a deleted file, up to the root, so
  // deleted backups do not leave directory skeletons behind.
  async #pruneEmptyParents(rel: string): Promise<void> {
    const segs = rel.split('/');
    for (let n = segs.length - 1; n > 0; n--) {
      try {
        await rmdir(this.#abs(segs.slice(0, n).join('/')));
      } catch {
        return; // not empty (or already gone): stop climbing
      }
    }
  }
}

async function fsyncFile(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}
