import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupNotFoundError } from '../errors.ts';
import { FsRemote } from '../fs/fs-remote.ts';
import { COMPLETE_MARKER, METADATA_MARKER, parseBackupMetadata } from '../markers.ts';
import { FaultyRemote } from '../testing/faulty-remote.ts';
import { makeTree, tempDir, type TempDir } from '../testing/tree.ts';
import { backup } from './backup.ts';
import { copyBackup } from './copy-backup.ts';

let tmp: TempDir;
let src: string;
let dst: FsRemote;
beforeEach(async () => {
  tmp = await tempDir('copy');
  src = join(tmp.path, 'snapshot');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  await makeTree(src, { 'a.bin': 'aaaaaaaaaaaa', 'd/b.bin': 'bb', 'd/e.bin': '' });
});
afterEach(() => tmp.cleanup());

const dataOf = async (name: string) =>
  (await dst.list(name)).filter((f) => !f.path.endsWith('.ignore')).map((f) => ({ path: f.path.slice(name.length + 1), size: f.size }));

describe('copyBackup', () => {
  it('copies a complete backup server-side, keeping its created_at', async () => {
    const made = await backup(src, dst, 'latest', { partSize: 5, now: () => Date.UTC(2024, 0, 1) });
    const spy = new FaultyRemote(dst);
    const res = await copyBackup(spy, 'latest', 'daily/2024-01-01', { now: () => Date.UTC(2024, 0, 1, 0, 5) });
    expect(res).toMatchObject({ copiedParts: 5, copiedBytes: 14, totalParts: 5, totalBytes: 14, keptParts: 0, deletedFiles: 0 });
    expect(spy.callsOf('upload')).toEqual([]);
    expect(await dataOf('daily/2024-01-01')).toEqual(await dataOf('latest'));
    expect(await dst.hasFile(`daily/2024-01-01/${COMPLETE_MARKER}`)).toBe(true);
    const meta = parseBackupMetadata(String(await dst.readFile(`daily/2024-01-01/${METADATA_MARKER}`)));
    expect(meta).toEqual({ created_at: new Date(made.createdAt).toISOString(), completed_at: '2024-01-01T00:05:00.000Z', files: made.totalFiles, bytes: 14 });
  });

  it('copies only what changed since the last copy and deletes what is gone', async () => {
    await backup(src, dst, 'latest', { partSize: 5 });
    await copyBackup(dst, 'latest', 'weekly/2024-01');
    await makeTree(src, { 'a.bin': 'aaaaaaaaaaaaaaa' }); // a new, longer file: different part names
    await backup(src, dst, 'latest', { partSize: 5 });
    const spy = new FaultyRemote(dst);
    const res = await copyBackup(spy, 'latest', 'weekly/2024-01');
    expect(res).toMatchObject({ copiedParts: 3, keptParts: 2, deletedFiles: 3 });
    expect(await dataOf('weekly/2024-01')).toEqual(await dataOf('latest'));
  });

  it('refuses an incomplete or missing source', async () => {
    await expect(copyBackup(dst, 'latest', 'daily/2024-01-01')).rejects.toBeInstanceOf(BackupNotFoundError);
    await backup(src, dst, 'latest');
    await dst.delete(`latest/${COMPLETE_MARKER}`);
    await expect(copyBackup(dst, 'latest', 'daily/2024-01-01')).rejects.toThrow(/not complete/);
    await expect(copyBackup(dst, 'latest', 'latest')).rejects.toThrow(/onto itself/);
  });

  it('leaves the target incomplete after a failure, and a retry completes it', async () => {
    await backup(src, dst, 'latest', { partSize: 5 });
    const faulty = new FaultyRemote(dst, (c) => (c.op === 'copy' && c.n === 3 ? { error: new Error('quota exceeded') } : undefined));
    await expect(copyBackup(faulty, 'latest', 'daily/2024-01-01', { concurrency: 1 })).rejects.toThrow(/cannot copy part .*quota exceeded/);
    expect(await dst.hasFile(`daily/2024-01-01/${COMPLETE_MARKER}`)).toBe(false);
    const spy = new FaultyRemote(dst);
    const res = await copyBackup(spy, 'latest', 'daily/2024-01-01');
    expect(res).toMatchObject({ copiedParts: 3, keptParts: 2 });
    expect(await dst.hasFile(`daily/2024-01-01/${COMPLETE_MARKER}`)).toBe(true);
  });
});
