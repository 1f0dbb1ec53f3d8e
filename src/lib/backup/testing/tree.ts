// Local directory helpers for tests.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listLocalFiles } from '../local-tree.ts';

/** TreeContent maps '/'-separated relative paths to file contents. */
export type TreeContent = Readonly<Record<string, string | Buffer>>;

/** makeTree writes `files` under `root` (creating directories). */
export async function makeTree(root: string, files: TreeContent): Promise<void> {
  for (const [path, data] of Object.entries(files)) {
    const abs = join(root, ...path.split('/'));
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, data);
  }
}

/** readTree returns every regular file under `root` as path → UTF-8 text. */
export async function readTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listLocalFiles(root)) out[f.path] = await readFile(join(root, ...f.path.split('/')), 'utf8');
  return out;
}

/** TempDir is a temporary directory removed by cleanup(). */
export interface TempDir {
  readonly path: string;
  readonly cleanup: () => Promise<void>;
}

/** tempDir creates a fresh temporary directory. */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `${prefix}-`));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}
