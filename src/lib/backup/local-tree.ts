import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkRemotePath } from './remote-fs.ts';

/** LocalFile is a regular file found under a local directory. */
export interface LocalFile {
  /** path relative to the walked root, '/'-separated. */
  readonly path: string;
  readonly size: number;
}

/** WalkOptions configures listLocalFiles. */
export interface WalkOptions {
  /** skipRootNames are file names ignored at the root only (process control files such as the data-dir lock). */
  readonly skipRootNames?: readonly string[];
  readonly signal?: AbortSignal | undefined;
}

/**
 * listLocalFiles returns every regular file under `root`, sorted by path. Empty directories
 * are not represented. Symbolic links, sockets and other special files are rejected with an
 * error naming them: a snapshot holds only regular (hard-linked) files, so anything else means
 * the wrong directory was given.
 */
export async function listLocalFiles(root: string, opts: WalkOptions = {}): Promise<LocalFile[]> {
  const st = await lstat(root).catch((err: Error) => {
    throw new Error(`cannot read directory "${root}": ${err.message}`, { cause: err });
  });
  if (!st.isDirectory()) throw new Error(`cannot read directory "${root}": not a directory`);
  const skip = new Set(opts.skipRootNames ?? []);
  const out: LocalFile[] = [];
  await walk(root, '', out, skip, opts.signal);
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

async function walk(root: string, rel: string, out: LocalFile[], skip: Set<string>, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const dir = rel === '' ? root : join(root, rel);
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: Error) => {
    throw new Error(`cannot read directory "${dir}": ${err.message}`, { cause: err });
  });
  for (const e of entries) {
    if (rel === '' && skip.has(e.name)) continue;
    const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) {
      await walk(root, childRel, out, skip, signal);
    } else if (e.isFile()) {
      checkRemotePath(childRel);
      const s = await lstat(join(root, childRel));
      out.push({ path: childRel, size: s.size });
    } else {
      throw new Error(`cannot back up "${join(root, childRel)}": only regular files and directories are supported`);
    }
  }
}
