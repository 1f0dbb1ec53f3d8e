import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * writeLocalFileAtomic writes `data` to a temporary file beside `path`, fsyncs it, renames it
 * over `path` and fsyncs the directory, creating the directory when needed: readers see the old
 * file or the new one, never a partial one, and once it resolves the new file survives a crash.
 */
export async function writeLocalFileAtomic(path: string, data: string | Buffer): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.tmp-${randomBytes(8).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true });
    const fh = await open(temp, 'wx');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, path);
    await fsyncDir(dir);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw new Error(`cannot write "${path}": ${(err as Error).message}`, { cause: err });
  }
}

/**
 * fsyncDir flushes a directory's entries (names created, renamed or removed in it) to disk; a
 * rename is durable only after this. Filesystems that cannot fsync a directory (EINVAL, as
 * some FUSE and network filesystems answer) are accepted as they are.
 */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL') {
      throw new Error(`cannot fsync directory "${dir}": ${(err as Error).message}`, { cause: err });
    }
  } finally {
    await fh.close();
  }
}
