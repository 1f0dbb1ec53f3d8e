import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupNotFoundError } from '../errors.ts';
import { FsRemote } from '../fs/fs-remote.ts';
import { COMPLETE_MARKER, LOCK_MARKER } from '../markers.ts';
import { makeTree, tempDir, type TempDir } from '../testing/tree.ts';
import { backup } from './backup.ts';
import { applyRetention, deleteBackup, getBackup, listBackups, scanBackups, setBackupLocked } from './backups.ts';
import { copyBackup } from './copy-backup.ts';

let tmp: TempDir;
let dst: FsRemote;
const t0 = Date.UTC(2024, 2, 5, 7, 0, 0);

beforeEach(async () => {
  tmp = await tempDir('backups');
  const src = join(tmp.path, 'snapshot');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  await makeTree(src, { a: 'x'.repeat(318874), b: 'yy' });
  await backup(src, dst, 'latest', { now: () => t0 });
  for (const name of ['hourly/2024-03-05:06', 'hourly/2024-03-05:07', 'daily/2024-03-04', 'daily/2024-03-05', 'weekly/2024-10']) {
    await copyBackup(dst, 'latest', name);
  }
  // an incomplete interval backup and an unrelated folder
  await copyBackup(dst, 'latest', 'monthly/2024-03');
  await dst.delete(`monthly/2024-03/${COMPLETE_MARKER}`);
  await dst.writeFile('other/file', 'z');
});
afterEach(() => tmp.cleanup());

describe('listBackups', () => {
  it('lists complete backups with sizes and creation times, sorted by name', async () => {
    const list = await listBackups(dst);
    expect(list.map((r) => r.name)).toEqual(['daily/2024-03-04', 'daily/2024-03-05', 'hourly/2024-03-05:06', 'hourly/2024-03-05:07', 'latest', 'weekly/2024-10']);
    for (const r of list) {
      expect(r).toEqual({ name: r.name, size_bytes: 318876, size: '311.4 KiB', created_at: '2024-03-05T07:00:00.000Z' });
    }
  });

  it('scans incomplete and locked backups too', async () => {
    await setBackupLocked(dst, 'daily/2024-03-04', true);
    const scan = await scanBackups(dst);
    expect(scan.find((b) => b.name === 'monthly/2024-03')).toMatchObject({ complete: false, locked: false });
    expect(scan.find((b) => b.name === 'daily/2024-03-04')).toMatchObject({ complete: true, locked: true, sizeBytes: 318876 });
    expect(scan.some((b) => b.name.startsWith('other'))).toBe(false);
  });
});

describe('getBackup and setBackupLocked', () => {
  it('returns one record with locked, and toggles the lock', async () => {
    expect(await getBackup(dst, 'daily/2024-03-05')).toMatchObject({ name: 'daily/2024-03-05', locked: false, size: '311.4 KiB' });
    expect(await setBackupLocked(dst, 'daily/2024-03-05', true)).toMatchObject({ locked: true });
    expect(await dst.hasFile(`daily/2024-03-05/${LOCK_MARKER}`)).toBe(true);
    expect(await getBackup(dst, 'daily/2024-03-05')).toMatchObject({ locked: true });
    expect(await setBackupLocked(dst, 'daily/2024-03-05', false)).toMatchObject({ locked: false });
    // the lock marker does not count in the size
    expect((await getBackup(dst, 'daily/2024-03-05')).size_bytes).toBe(318876);
  });

  it('reports missing or incomplete backups', async () => {
    const f = async (name: string) => {
      await expect(getBackup(dst, name)).rejects.toBeInstanceOf(BackupNotFoundError);
      await expect(setBackupLocked(dst, name, true)).rejects.toBeInstanceOf(BackupNotFoundError);
    };
    await f('daily/2023-01-01');
    await f('monthly/2024-03');
    expect(await dst.hasFile(`monthly/2024-03/${LOCK_MARKER}`)).toBe(false);
  });
});

describe('deleteBackup', () => {
  it('removes every object of the backup', async () => {
    expect(await deleteBackup(dst, 'daily/2024-03-04')).toBeGreaterThan(2);
    expect(await dst.list('daily/2024-03-04')).toEqual([]);
    expect((await dst.list('daily/2024-03-05')).length).toBeGreaterThan(0);
  });
});

describe('applyRetention', () => {
  it('deletes old interval backups, keeping locked ones and latest', async () => {
    await setBackupLocked(dst, 'hourly/2024-03-05:06', true);
    const deleted = await applyRetention(dst, { hourly: 0, daily: 1, weekly: -1, monthly: 0 });
    expect(deleted).toEqual(['daily/2024-03-04', 'hourly/2024-03-05:07', 'monthly/2024-03']);
    expect((await listBackups(dst)).map((r) => r.name)).toEqual(['daily/2024-03-05', 'hourly/2024-03-05:06', 'latest', 'weekly/2024-10']);
  });
});
