// The incremental rule (DECISIONS.md "Backup manager"), as a pure function: a part is uploaded
// only when the backup folder lacks an object with the same path and name (and the right size);
// when another backup of the same destination has it, it is copied server-side instead; objects
// in the folder that the source lacks are deleted. Markers are left to the caller.

import { isBackupMarker } from './markers.ts';
import { parsePartKey, partKey, type Part } from './part.ts';
import type { RemoteFile } from './remote-fs.ts';

/** PlannedCopy copies an existing remote object (`from`, relative to the RemoteFs root) to a part. */
export interface PlannedCopy {
  readonly part: Part;
  readonly from: string;
}

/** SyncPlan is what a sync of one backup folder has to do. */
export interface SyncPlan {
  readonly upload: readonly Part[];
  readonly copy: readonly PlannedCopy[];
  /** delete holds remote files (paths relative to the RemoteFs root) the source lacks. */
  readonly delete: readonly RemoteFile[];
  /** keptParts counts wanted parts already present. */
  readonly keptParts: number;
}

/** SyncInput is the input of planSync. */
export interface SyncInput {
  /** backup is the folder being written, relative to the RemoteFs root. */
  readonly backup: string;
  /** wanted are the parts the folder must hold when done. */
  readonly wanted: readonly Part[];
  /** existing are the remote files currently under `backup/`. */
  readonly existing: readonly RemoteFile[];
  /** origins are remote files under other backups of the same RemoteFs, by backup name. */
  readonly origins?: ReadonlyMap<string, readonly RemoteFile[]>;
}

/** planSync computes the SyncPlan for one backup folder; it does no I/O. */
export function planSync(input: SyncInput): SyncPlan {
  const wanted = new Map<string, Part>();
  for (const p of input.wanted) wanted.set(partKey(p), p);
  const present = new Set<string>();
  const del: RemoteFile[] = [];
  for (const f of input.existing) {
    const rel = relativeTo(input.backup, f.path);
    if (rel === undefined || isBackupMarker(rel)) continue;
    const key = canonicalKey(rel);
    const p = key === undefined ? undefined : wanted.get(key);
    if (key !== undefined && p && p.size === f.size && !present.has(key)) present.add(key);
    else del.push(f);
  }
  const originIndex = indexOrigins(input.origins);
  const upload: Part[] = [];
  const copy: PlannedCopy[] = [];
  for (const [key, p] of wanted) {
    if (present.has(key)) continue;
    const o = originIndex.get(key);
    if (o && o.size === p.size) copy.push({ part: p, from: o.path });
    else upload.push(p);
  }
  return { upload, copy, delete: del, keptParts: present.size };
}

/** relativeTo returns `path` relative to folder `dir`, or undefined when it is not under it. */
export function relativeTo(dir: string, path: string): string | undefined {
  if (dir === '') return path;
  return path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : undefined;
}

/** partsOf parses the part files among `files` (relative to backup folder `dir`), skipping markers and foreign files. */
export function partsOf(dir: string, files: readonly RemoteFile[]): Part[] {
  const out: Part[] = [];
  for (const f of files) {
    const rel = relativeTo(dir, f.path);
    if (rel === undefined || isBackupMarker(rel)) continue;
    const key = canonicalKey(rel);
    if (key !== undefined) out.push(parsePartKey(key));
  }
  return out;
}

function indexOrigins(origins: ReadonlyMap<string, readonly RemoteFile[]> | undefined): Map<string, RemoteFile> {
  const index = new Map<string, RemoteFile>();
  for (const [name, files] of origins ?? []) {
    for (const f of files) {
      const rel = relativeTo(name, f.path);
      if (rel === undefined || isBackupMarker(rel)) continue;
      const key = canonicalKey(rel);
      if (key !== undefined && !index.has(key)) index.set(key, f);
    }
  }
  return index;
}

function canonicalKey(rel: string): string | undefined {
  try {
    return partKey(parsePartKey(rel));
  } catch {
    return undefined; // not a part: a foreign file, deleted by the sync
  }
}
