// Before a restore touches the data directory it proves, from the listing alone, that the
// backup's parts cover every file exactly: every part of a file agrees on the file size, the
// parts start at 0, follow each other without gaps or overlaps, add up to the file size, and
// every object has the size its name says.

import { CorruptBackupError } from './errors.ts';
import { isBackupMarker, RESTORE_IN_PROGRESS, RESTORE_MARK } from './markers.ts';
import { parsePartKey, type Part } from './part.ts';
import type { RemoteFile } from './remote-fs.ts';

/** RestorePart is a part to download: its remote path and where it goes in the file. */
export interface RestorePart {
  readonly remotePath: string;
  readonly offset: number;
  readonly size: number;
}

/** RestoreFile is one file to rebuild. */
export interface RestoreFile {
  /** path relative to the data directory, '/'-separated. */
  readonly path: string;
  readonly size: number;
  /** parts in offset order. */
  readonly parts: readonly RestorePart[];
}

const RESERVED_ROOT_FILES = new Set([RESTORE_MARK, RESTORE_IN_PROGRESS]);

/**
 * planRestore turns the listing of a backup folder (paths relative to the backup root) into
 * the files to rebuild, sorted by path. It throws CorruptBackupError listing the first
 * problems found when the parts do not cover the files exactly or unexpected objects exist.
 */
export function planRestore(files: readonly RemoteFile[]): RestoreFile[] {
  const problems: string[] = [];
  const byFile = new Map<string, { part: Part; remote: RemoteFile }[]>();
  for (const f of files) {
    if (isBackupMarker(f.path)) continue;
    let part: Part;
    try {
      part = parsePartKey(f.path);
    } catch (err) {
      problems.push(`unexpected object "${f.path}": ${(err as Error).message}`);
      continue;
    }
    if (f.size !== part.size) problems.push(`part "${f.path}" has ${f.size} bytes, its name says ${part.size}`);
    if (RESERVED_ROOT_FILES.has(part.filePath)) problems.push(`file "${part.filePath}" uses a reserved name`);
    const list = byFile.get(part.filePath) ?? [];
    list.push({ part, remote: f });
    byFile.set(part.filePath, list);
  }
  const out: RestoreFile[] = [];
  for (const [path, parts] of byFile) {
    const size = checkCoverage(path, parts.map((p) => p.part), problems);
    if (size === undefined) continue;
    const restoreParts = parts.map((p) => ({ remotePath: p.remote.path, offset: p.part.offset, size: p.part.size }));
    out.push({ path, size, parts: restoreParts.sort((a, b) => a.offset - b.offset) });
  }
  checkNoFileIsADirectory(out, problems);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    throw new CorruptBackupError(`backup is corrupt or incomplete: ${shown}${more}`);
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

// checkCoverage returns the file size when the parts tile [0, size) exactly, else records problems.
function checkCoverage(path: string, parts: Part[], problems: string[]): number | undefined {
  const size = parts[0]?.fileSize ?? 0;
  if (parts.some((p) => p.fileSize !== size)) {
    problems.push(`parts of file "${path}" disagree on its size`);
    return undefined;
  }
  const sorted = [...parts].sort((a, b) => a.offset - b.offset);
  let next = 0;
  for (const p of sorted) {
    if (p.offset !== next) {
      problems.push(p.offset > next ? `file "${path}" misses bytes ${next}..${p.offset - 1}` : `file "${path}" has overlapping parts at offset ${p.offset}`);
      return undefined;
    }
    next = p.offset + p.size;
  }
  if (size === 0 && sorted.length !== 1) {
    problems.push(`empty file "${path}" has ${sorted.length} parts`);
    return undefined;
  }
  if (next !== size) {
    problems.push(`file "${path}" misses bytes ${next}..${size - 1}`);
    return undefined;
  }
  return size;
}

function checkNoFileIsADirectory(files: readonly RestoreFile[], problems: string[]): void {
  const paths = new Set(files.map((f) => f.path));
  for (const f of files) {
    const segs = f.path.split('/');
    for (let n = 1; n < segs.length; n++) {
      const dir = segs.slice(0, n).join('/');
      if (paths.has(dir)) problems.push(`"${dir}" is both a file and a directory`);
    }
  }
}
