import { existsSync, linkSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from './common/errors.ts';
import { fsyncDir, listDirs, removeDir } from './common/fs-util.ts';
import { writeManifest } from './common/manifest.ts';

/** SNAPSHOT_NAME_RE matches snapshot names: UTC YYYYMMDDhhmmss, a dash, 16 hex digits. */
export const SNAPSHOT_NAME_RE = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})-[0-9A-F]{16}$/;

/** snapshotName returns a new snapshot name for time now (ms). */
export function snapshotName(now: number): string {
  const iso = new Date(now).toISOString(); // 2024-03-15T12:34:56.789Z
  const stamp = iso.slice(0, 19).replace(/[-:T]/g, '');
  return `${stamp}-${process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex').toUpperCase()}`;
}

/** snapshotTime returns the creation time encoded in a snapshot name (ms), or NaN. */
export function snapshotTime(name: string): number {
  const m = SNAPSHOT_NAME_RE.exec(name);
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/** checkSnapshotName rejects anything but a well-formed snapshot name (no path tricks). */
export function checkSnapshotName(name: string): void {
  if (typeof name !== 'string' || !SNAPSHOT_NAME_RE.test(name)) {
    throw new Error(`invalid snapshot name ${JSON.stringify(name)}: want YYYYMMDDhhmmss-<16 hex digits>`);
  }
}

/** snapshotsOlderThan returns the names created more than maxAgeMs before now. Pure. */
export function snapshotsOlderThan(names: readonly string[], now: number, maxAgeMs: number): string[] {
  if (maxAgeMs <= 0) return [];
  return names.filter((n) => now - snapshotTime(n) > maxAgeMs);
}

/** listSnapshots returns the names of complete snapshots under dir, oldest first. */
export function listSnapshots(dir: string): string[] {
  return listDirs(dir).filter((n) => SNAPSHOT_NAME_RE.test(n));
}

/** removeIncompleteSnapshots deletes snapshot dirs a crash left half-made (their names end in .tmp). */
export function removeIncompleteSnapshots(dir: string): void {
  for (const n of listDirs(dir)) if (n.endsWith('.tmp')) removeDir(join(dir, n));
}

/** deleteSnapshot removes one snapshot; throws when the name is invalid or unknown. */
export function deleteSnapshot(dir: string, name: string): void {
  checkSnapshotName(name);
  const path = join(dir, name);
  if (!existsSync(path)) throw new Error(`cannot delete snapshot "${name}": no such snapshot`);
  removeDir(path);
}

/** LivePartSet is one directory of live parts to snapshot (a partition or the index). */
export interface LivePartSet {
  /** rel is the directory relative to the data path, e.g. "data/2024_03" or "indexdb". */
  readonly rel: string;
  readonly dir: string;
  readonly parts: readonly string[];
}

/**
 * linkSnapshot creates snapshot `name` under dir by hard-linking every file of every live part
 * into the same relative place and writing a manifest per directory listing exactly those parts:
 * the result is a self-contained data directory. It is built under "<name>.tmp" and renamed at
 * the end, so a crash never leaves a snapshot that looks complete. Synchronous: the live set
 * cannot change while it runs.
 */
export function linkSnapshot(dir: string, name: string, sets: readonly LivePartSet[]): void {
  checkSnapshotName(name);
  const tmp = join(dir, `${name}.tmp`);
  try {
    mkdirSync(tmp, { recursive: true });
    for (const set of sets) {
      const target = join(tmp, set.rel);
      mkdirSync(target, { recursive: true });
      for (const part of set.parts) {
        mkdirSync(join(target, part));
        for (const f of readdirSync(join(set.dir, part))) linkSync(join(set.dir, part, f), join(target, part, f));
        fsyncDir(join(target, part));
      }
      writeManifest(target, set.parts);
    }
    fsyncDir(tmp);
    renameSync(tmp, join(dir, name));
    fsyncDir(dir);
  } catch (err) {
    removeDir(tmp);
    throw new Error(`cannot create snapshot "${name}": ${errorMessage(err)}`, { cause: err });
  }
}
