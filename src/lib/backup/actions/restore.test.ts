import { readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupNotFoundError, CorruptBackupError, DataDirLockedError } from '../errors.ts';
import { FsRemote } from '../fs/fs-remote.ts';
import { COMPLETE_MARKER, METADATA_MARKER, RESTORE_IN_PROGRESS, RESTORE_MARK } from '../markers.ts';
import { FaultyRemote } from '../testing/faulty-remote.ts';
import { makeTree, readTree, tempDir, type TempDir } from '../testing/tree.ts';
import { backup } from './backup.ts';
import { findPendingRestore } from './restore-mark.ts';
import { restore } from './restore.ts';

let tmp: TempDir;
let src: string;
let data: string;
let dst: FsRemote;
let backupFs: FsRemote; // rooted at the backup itself, as a restore source is
const snapshot = {
  'data/small/p1/timestamps.bin': 'ttttttttttttttttttttttt',
  'data/small/p1/values.bin': 'vvvvv',
  'data/small/p1/empty.bin': '',
  'data/big/p9/values.bin': 'x'.repeat(100),
  'indexdb/meta.json': '{"v":1}',
};
const oldData = { 'data/old/part.bin': 'old', 'flock.lock': '999999999', 'snapshots/s1/x': 'y' };
const notLocked = async () => false;

beforeEach(async () => {
  tmp = await tempDir('restore');
  src = join(tmp.path, 'snapshot');
  data = join(tmp.path, 'data');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  backupFs = new FsRemote({ root: join(tmp.path, 'dst', 'latest'), fsync: false });
  await makeTree(src, snapshot);
  await backup(src, dst, 'latest', { partSize: 8 });
  await makeTree(data, { ...oldData, [RESTORE_MARK]: backupFs.url });
});
afterEach(() => tmp.cleanup());

describe('restore', () => {
  it('replaces the data dir with the backup and removes the mark and in-progress file', async () => {
    const res = await restore(backupFs, data, { isDataDirLocked: notLocked });
    expect(res).toMatchObject({ url: backupFs.url, files: 5, totalBytes: 135, downloadedBytes: 135, keptFiles: 0 });
    expect(await readTree(data)).toEqual(snapshot);
    expect((await readdir(data)).sort()).toEqual(['data', 'indexdb']);
  });

  it('fsyncs every directory of the restored tree before removing the mark and the in-progress file', async () => {
    const events: string[] = [];
    const fsyncDir = async (abs: string) => {
      const markLeft = (await readdir(data)).includes(RESTORE_IN_PROGRESS);
      events.push(`${abs === data ? '.' : abs.slice(data.length + 1)}${markLeft ? '' : ' (after)'}`);
    };
    await restore(backupFs, data, { isDataDirLocked: notLocked, fsyncDir, concurrency: 1 });
    // every ancestor of a restored file while the in-progress file still exists, then the data
    // dir again after each removal
    expect(events).toEqual(['.', 'data', 'data/big', 'data/big/p9', 'data/small', 'data/small/p1', 'indexdb', '.', '. (after)']);
  });

  it('restores into a data dir that does not exist yet', async () => {
    await restore(backupFs, join(tmp.path, 'fresh'), { isDataDirLocked: notLocked });
    expect(await readTree(join(tmp.path, 'fresh'))).toEqual(snapshot);
  });

  it('refuses while the storage holds the data dir, touching nothing', async () => {
    await writeFile(join(data, 'flock.lock'), String(process.ppid)); // a live process
    const err = await restore(backupFs, data).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toMatch(/stop the storage first/);
    expect(await readTree(data)).toEqual({ ...oldData, 'flock.lock': String(process.ppid), [RESTORE_MARK]: backupFs.url });
  });

  it('refuses an incomplete backup, touching nothing', async () => {
    await dst.delete(`latest/${COMPLETE_MARKER}`);
    await expect(restore(backupFs, data, { isDataDirLocked: notLocked })).rejects.toBeInstanceOf(BackupNotFoundError);
    expect(await readTree(data)).toEqual({ ...oldData, [RESTORE_MARK]: backupFs.url });
  });

  it('refuses a corrupt backup, touching nothing', async () => {
    const f = async (damage: () => Promise<void>, want: RegExp) => {
      await damage();
      const err = await restore(backupFs, data, { isDataDirLocked: notLocked }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CorruptBackupError);
      expect((err as Error).message).toMatch(want);
      expect(await readTree(data)).toEqual({ ...oldData, [RESTORE_MARK]: backupFs.url });
    };
    // a missing part
    await f(() => dst.delete('latest/data/small/p1/timestamps.bin/0000000000000017_0000000000000008_0000000000000008'), /misses bytes 8\.\.15/);
    // a part with the wrong size
    await f(() => dst.writeFile('latest/data/small/p1/timestamps.bin/0000000000000017_0000000000000008_0000000000000008', 'short'), /has 5 bytes/);
  });

  it('refuses a backup that lost a whole file, or its metadata, touching nothing', async () => {
    const f = async (damage: () => Promise<void>, want: RegExp) => {
      await damage();
      const err = await restore(backupFs, data, { isDataDirLocked: notLocked }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CorruptBackupError);
      expect((err as Error).message).toMatch(want);
      expect(await readTree(data)).toEqual({ ...oldData, [RESTORE_MARK]: backupFs.url });
    };
    // the only part of a file: the listing alone looks whole
    await f(() => dst.delete('latest/indexdb/meta.json/0000000000000007_0000000000000000_0000000000000007'), /it was made of 5 files \(135 bytes\) but its parts make 4 files \(128 bytes\)/);
    await f(() => dst.writeFile(`latest/${METADATA_MARKER}`, '{'), /backup_metadata\.ignore is unreadable/);
    await f(() => dst.delete(`latest/${METADATA_MARKER}`), /backup_metadata\.ignore is missing/);
  });

  it('restores a backup whose metadata predates the totals', async () => {
    await dst.writeFile(`latest/${METADATA_MARKER}`, '{"created_at":"2024-01-01T00:00:00Z","completed_at":"2024-01-01T00:00:00Z"}');
    await restore(backupFs, data, { isDataDirLocked: notLocked });
    expect(await readTree(data)).toEqual(snapshot);
  });

  it('is completed by a retry after an interruption', async () => {
    let reads = 0;
    const faulty = new FaultyRemote(backupFs, (c) => (c.op === 'read' && ++reads === 16 ? { error: new Error('network down'), midStream: true } : undefined));
    await expect(restore(faulty, data, { isDataDirLocked: notLocked, concurrency: 1 })).rejects.toThrow(/cannot restore file "data\/small\/p1\/timestamps.bin" from fs:\/\/\/.*: network down/);
    expect(await readFile(join(data, RESTORE_IN_PROGRESS), 'utf8')).toBe(backupFs.url);
    expect(await readFile(join(data, RESTORE_MARK), 'utf8')).toBe(backupFs.url);
    expect(Object.keys(await readTree(data)).some((p) => p.endsWith('.restore-tmp'))).toBe(false);

    const spy = new FaultyRemote(backupFs);
    const res = await restore(spy, data, { isDataDirLocked: notLocked, concurrency: 1 });
    expect(res.keptFiles).toBe(2); // data/big/p9/values.bin and data/small/p1/empty.bin were done
    expect(spy.callsOf('read').map((c) => c.path.split('/').slice(0, -1).join('/'))).toEqual([
      'data/small/p1/timestamps.bin',
      'data/small/p1/timestamps.bin',
      'data/small/p1/timestamps.bin',
      'data/small/p1/values.bin',
      'indexdb/meta.json',
    ]);
    expect(res.downloadedBytes).toBeLessThan(res.totalBytes);
    expect(await readTree(data)).toEqual(snapshot);
  });

  it('leaves a state findPendingRestore resumes when only the in-progress file survived', async () => {
    await makeTree(data, { [RESTORE_IN_PROGRESS]: backupFs.url, 'data/half': 'x' });
    await unlink(join(data, RESTORE_MARK));
    expect(await findPendingRestore(data)).toEqual({ url: backupFs.url, from: 'in-progress' });
    await restore(backupFs, data, { isDataDirLocked: notLocked });
    expect(await findPendingRestore(data)).toBeUndefined();
    expect(await readTree(data)).toEqual(snapshot);
  });

  it('does not keep files of another restore that was interrupted', async () => {
    // same path and size as a backup file, but left by a restore of a different backup
    await makeTree(data, { [RESTORE_IN_PROGRESS]: 'fs:///elsewhere', 'data/small/p1/values.bin': 'WRONG' });
    const res = await restore(backupFs, data, { isDataDirLocked: notLocked });
    expect(res.keptFiles).toBe(0);
    expect(await readTree(data)).toEqual(snapshot);
  });

  it('refuses a relative data dir', async () => {
    await expect(restore(backupFs, 'relative/data')).rejects.toThrow(/must be absolute/);
  });
});
