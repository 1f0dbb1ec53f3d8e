// The backup actions end to end over a real protocol backend: backup, incremental backup,
// server-side copy into an interval folder, listing, restore mark, restore, retention, and
// recovery from a failure in the middle of an upload.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyRetention,
  backup,
  COMPLETE_MARKER,
  copyBackup,
  createRestoreMark,
  findPendingRestore,
  listBackups,
  parseRemoteUrl,
  restore,
  setBackupLocked,
  type RemoteFs,
} from '../../src/lib/backup/index.ts';
import { FaultyRemote } from '../../src/lib/backup/testing/faulty-remote.ts';
import { makeTree, readTree, tempDir, type TempDir } from '../../src/lib/backup/testing/tree.ts';

/** Backend opens a RemoteFs of one backend rooted at a key prefix. */
export interface Backend {
  readonly open: (prefix: string) => Promise<RemoteFs>;
}

let suite = 0;

/** describeActionsOver defines the end-to-end action tests for one backend. */
export function describeActionsOver(name: string, backend: Backend): void {
  describe(`backup actions over ${name}`, () => {
    let tmp: TempDir;
    let prefix: string;
    let dst: RemoteFs;
    const snapshot = {
      'data/small/2024_03/part-1/timestamps.bin': randomBytes(10_000).toString('base64'),
      'data/small/2024_03/part-1/values.bin': randomBytes(3_000).toString('hex'),
      'data/small/2024_03/part-1/empty.bin': '',
      'indexdb/table/meta.json': '{"v":1}',
    };
    beforeEach(async () => {
      tmp = await tempDir('actions');
      prefix = `actions-${suite++}/node-0`;
      dst = await backend.open(prefix);
      await makeTree(join(tmp.path, 'snap'), snapshot);
    });
    afterEach(async () => {
      await dst.close();
      await tmp.cleanup();
    });
    const opts = { partSize: 4096, concurrency: 4 };

    it('backs up, copies, lists, marks and restores', async () => {
      const first = await backup(join(tmp.path, 'snap'), dst, 'latest', opts);
      expect(first).toMatchObject({ uploadedParts: 8, uploadedBytes: 19_343 });
      const again = await backup(join(tmp.path, 'snap'), dst, 'latest', opts);
      expect(again).toMatchObject({ uploadedBytes: 0, keptParts: 8 });
      const copied = await copyBackup(dst, 'latest', 'daily/2024-03-05', opts);
      expect(copied).toMatchObject({ copiedParts: 8, copiedBytes: 19_343 });
      expect((await listBackups(dst)).map((r) => [r.name, r.size_bytes, r.size])).toEqual([
        ['daily/2024-03-05', 19_343, '18.9 KiB'],
        ['latest', 19_343, '18.9 KiB'],
      ]);

      const data = join(tmp.path, 'data');
      await makeTree(data, { 'stale/file': 'old' });
      const openRemote = (url: string) => backend.open(parseRemoteUrl(url).path);
      const mark = await createRestoreMark({ dataDir: data, backup: 'daily/2024-03-05', dst, openRemote });
      expect(mark.backup).toBe(`${dst.url}/daily/2024-03-05`);
      const pending = await findPendingRestore(data);
      const src = await openRemote(pending?.url ?? '');
      try {
        const res = await restore(src, data, { isDataDirLocked: async () => false, concurrency: 3 });
        expect(res).toMatchObject({ files: 4, totalBytes: 19_343 });
      } finally {
        await src.close();
      }
      expect(await readTree(data)).toEqual(snapshot);
      expect(await findPendingRestore(data)).toBeUndefined();
    });

    it('recovers from a destination failing mid-upload', async () => {
      const faulty = new FaultyRemote(dst, (c) => (c.op === 'upload' && c.n === 4 ? { error: new Error('connection reset'), midStream: true } : undefined));
      await expect(backup(join(tmp.path, 'snap'), faulty, 'latest', { ...opts, concurrency: 1 })).rejects.toThrow(/connection reset/);
      expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(false);
      const spy = new FaultyRemote(dst);
      const res = await backup(join(tmp.path, 'snap'), spy, 'latest', opts);
      expect(res).toMatchObject({ keptParts: 3, uploadedParts: 5 });
      expect(spy.callsOf('upload')).toHaveLength(5);
      expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(true);
    });

    it('applies retention', async () => {
      await backup(join(tmp.path, 'snap'), dst, 'latest', opts);
      for (const d of ['daily/2024-03-03', 'daily/2024-03-04', 'daily/2024-03-05']) await copyBackup(dst, 'latest', d, opts);
      await setBackupLocked(dst, 'daily/2024-03-03', true);
      expect(await applyRetention(dst, { daily: 1 })).toEqual(['daily/2024-03-04']);
      expect((await listBackups(dst)).map((r) => r.name)).toEqual(['daily/2024-03-03', 'daily/2024-03-05', 'latest']);
    });
  });
}
