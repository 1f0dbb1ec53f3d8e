import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * writeLocalFileAtomic writes `data` to a temporary file beside `path`, fsyncs it and renames
 * it over `path`, creating the directory when needed: readers see the old file or the new
 * one, never a partial one.
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
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw new Error(`cannot write "${path}": ${(err as Error).message}`, { cause: err });
  }
}
