import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsRemote } from '../fs/fs-remote.ts';
import { COMPLETE_MARKER, METADATA_MARKER, parseBackupMetadata } from '../markers.ts';
import type { Progress } from '../progress.ts';
import { FaultyRemote } from '../testing/faulty-remote.ts';
import { makeTree, tempDir, type TempDir } from '../testing/tree.ts';
import { backup } from './backup.ts';

let tmp: TempDir;
let src: string;
let dst: FsRemote;
beforeEach(async () => {
  tmp = await tempDir('backup');
  src = join(tmp.path, 'snapshot');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  await makeTree(src, {
    'data/small/p1/timestamps.bin': 'tttttttttttttttttttttttt', // 24 bytes → 3 parts of 10
    'data/small/p1/values.bin': 'vvvvv',
    'data/small/p1/empty.bin': '',
    'indexdb/meta.json': '{"v":1}',
  });
});
afterEach(() => tmp.cleanup());

const clock = () => {
  let t = Date.UTC(2024, 2, 5, 7, 0, 0);
  return () => (t += 1000);
};
const dataFiles = async (name: string) => (await dst.list(name)).filter((f) => !f.path.endsWith('.ignore')).map((f) => f.path);

describe('backup', () => {
  it('uploads every part, then writes metadata and the complete marker', async () => {
    const res = await backup(src, dst, 'latest', { partSize: 10, now: clock() });
    expect(res).toMatchObject({ name: 'latest', totalParts: 6, totalBytes: 36, uploadedParts: 6, uploadedBytes: 36, copiedParts: 0, keptParts: 0, deletedFiles: 0 });
    expect(await dataFiles('latest')).toEqual([
      'latest/data/small/p1/empty.bin/0000000000000000_0000000000000000_0000000000000000',
      'latest/data/small/p1/timestamps.bin/0000000000000018_0000000000000000_000000000000000A',
      'latest/data/small/p1/timestamps.bin/0000000000000018_000000000000000A_000000000000000A',
      'latest/data/small/p1/timestamps.bin/0000000000000018_0000000000000014_0000000000000004',
      'latest/data/small/p1/values.bin/0000000000000005_0000000000000000_0000000000000005',
      'latest/indexdb/meta.json/0000000000000007_0000000000000000_0000000000000007',
    ]);
    expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(true);
    const meta = parseBackupMetadata(String(await dst.readFile(`latest/${METADATA_MARKER}`)));
    expect(meta).toEqual({ created_at: new Date(res.createdAt).toISOString(), completed_at: new Date(res.completedAt).toISOString(), files: 4, bytes: 36 });
    expect(res.completedAt).toBeGreaterThan(res.createdAt);
  });

  it('uploads zero bytes when the data did not change', async () => {
    await backup(src, dst, 'latest', { partSize: 10 });
    const spy = new FaultyRemote(dst);
    const res = await backup(src, spy, 'latest', { partSize: 10 });
    expect(res).toMatchObject({ uploadedBytes: 0, uploadedParts: 0, copiedParts: 0, deletedFiles: 0, keptParts: 6 });
    expect(spy.callsOf('upload')).toEqual([]);
    expect(spy.callsOf('copy')).toEqual([]);
  });

  it('uploads new files and deletes the parts of removed files', async () => {
    await backup(src, dst, 'latest', { partSize: 10 });
    await rm(join(src, 'data/small/p1'), { recursive: true });
    await makeTree(src, { 'data/small/p2/values.bin': 'new!' });
    const spy = new FaultyRemote(dst);
    const res = await backup(src, spy, 'latest', { partSize: 10 });
    expect(res).toMatchObject({ uploadedParts: 1, uploadedBytes: 4, deletedFiles: 5, keptParts: 1 });
    expect(spy.callsOf('upload').map((c) => c.path)).toEqual(['latest/data/small/p2/values.bin/0000000000000004_0000000000000000_0000000000000004']);
    expect(await dataFiles('latest')).toEqual([
      'latest/data/small/p2/values.bin/0000000000000004_0000000000000000_0000000000000004',
      'latest/indexdb/meta.json/0000000000000007_0000000000000000_0000000000000007',
    ]);
  });

  it('leaves no complete marker when the destination fails mid-upload, and the next run uploads only what is missing', async () => {
    const faulty = new FaultyRemote(dst, (c) => (c.op === 'upload' && c.n === 3 ? { error: new Error('connection reset'), midStream: true } : undefined));
    await expect(backup(src, faulty, 'latest', { partSize: 10, concurrency: 1 })).rejects.toThrow(/cannot upload part "latest\/.*": .*connection reset/);
    expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(false);
    expect(await dataFiles('latest')).toHaveLength(2); // the two parts before the failure

    const spy = new FaultyRemote(dst);
    const res = await backup(src, spy, 'latest', { partSize: 10, concurrency: 1 });
    expect(res).toMatchObject({ uploadedParts: 4, keptParts: 2 });
    expect(spy.callsOf('upload')).toHaveLength(4);
    expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(true);
  });

  it('removes the complete marker of the previous run before changing anything', async () => {
    await backup(src, dst, 'latest', { partSize: 10 });
    const faulty = new FaultyRemote(dst, (c) => (c.op === 'list' ? { error: new Error('list failed') } : undefined));
    await expect(backup(src, faulty, 'latest')).rejects.toThrow('list failed');
    expect(faulty.calls.map((c) => c.op)).toEqual(['delete', 'list']);
    expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(false);
  });

  it('copies server-side from latest into an interval folder instead of uploading', async () => {
    await backup(src, dst, 'latest', { partSize: 10 });
    await makeTree(src, { 'extra.bin': 'xyz' });
    const spy = new FaultyRemote(dst);
    const res = await backup(src, spy, 'daily/2024-03-05', { partSize: 10 });
    expect(res).toMatchObject({ copiedParts: 6, copiedBytes: 36, uploadedParts: 1, uploadedBytes: 3 });
    expect(spy.callsOf('upload').map((c) => c.path)).toEqual(['daily/2024-03-05/extra.bin/0000000000000003_0000000000000000_0000000000000003']);
    // explicit origins: none
    const res2 = await backup(src, dst, 'daily/2024-03-06', { partSize: 10, origins: [] });
    expect(res2).toMatchObject({ copiedParts: 0, uploadedParts: 7 });
  });

  it('throttles uploads to maxBytesPerSecond over all workers', async () => {
    let t = 0;
    const res = await backup(src, dst, 'latest', {
      partSize: 10,
      concurrency: 4,
      maxBytesPerSecond: 12,
      now: () => t,
      delay: async (ms) => {
        t += ms;
      },
    });
    // 36 bytes at 12 B/s with a 12-byte burst: 2 s of waiting, whatever the interleaving
    expect(res.uploadedBytes).toBe(36);
    expect(t).toBeGreaterThanOrEqual(2000);
    expect(t).toBeLessThanOrEqual(2100);
  });

  it('reports progress up to the total', async () => {
    const reports: Progress[] = [];
    await backup(src, dst, 'latest', { partSize: 10, onProgress: (p) => reports.push(p), progressIntervalMs: 0 });
    expect(reports.at(-1)).toMatchObject({ bytesDone: 36, bytesTotal: 36, partsDone: 6, partsTotal: 6, etaSeconds: 0 });
    const done = reports.map((r) => r.bytesDone);
    expect(done).toEqual([...done].sort((a, b) => a - b));
  });

  it('stops when aborted and leaves the backup incomplete', async () => {
    const ac = new AbortController();
    const faulty = new FaultyRemote(dst, (c) => {
      if (c.op === 'upload' && c.n === 2) ac.abort(new Error('shutting down'));
      return undefined;
    });
    await expect(backup(src, faulty, 'latest', { partSize: 10, concurrency: 1, signal: ac.signal })).rejects.toThrow('shutting down');
    expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(false);
  });

  it('skips process control files at the source root', async () => {
    await makeTree(src, { 'flock.lock': '123', 'restore-in-progress': 'x', 'backup_restore.ignore': 'x', 'sub/flock.lock': 'kept' });
    await backup(src, dst, 'latest');
    const paths = await dataFiles('latest');
    expect(paths.some((p) => p.startsWith('latest/flock.lock/') || p.includes('restore'))).toBe(false);
    expect(paths.some((p) => p.startsWith('latest/sub/flock.lock/'))).toBe(true);
  });

  it('fails clearly for a missing source or a bad name', async () => {
    await expect(backup(join(tmp.path, 'nope'), dst, 'latest')).rejects.toThrow(/cannot read directory ".*nope"/);
    await expect(backup(src, dst, '../x')).rejects.toThrow(/invalid backup name/);
    await expect(backup(src, dst, 'latest', { concurrency: 0 })).rejects.toThrow(/concurrency/);
  });
});
