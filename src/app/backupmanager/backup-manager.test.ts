import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsRemote, type RemoteFs } from '../../lib/backup/index.ts';
import { makeTree, tempDir, type TempDir } from '../../lib/backup/testing/tree.ts';
import { initBackupManager } from './backup-manager.ts';
import type { ServeOptions } from './flags.ts';
import { captureLogger, fakeSnapshots, type CapturedLogger, type FakeSnapshots } from './testing.test-helpers.ts';

let tmp: TempDir;
let dataDir: string;
let snapshots: FakeSnapshots;
let log: CapturedLogger;
let opened: string[];
let options: ServeOptions;

beforeEach(async () => {
  tmp = await tempDir('bm-manager');
  dataDir = join(tmp.path, 'data');
  await makeTree(join(tmp.path, 'live'), { 'data/p1/values.bin': 'v'.repeat(1000), 'indexdb/meta.json': '{}' });
  snapshots = fakeSnapshots(dataDir, join(tmp.path, 'live'));
  log = captureLogger();
  opened = [];
  options = {
    dst: `fs://${join(tmp.path, 'dst')}`, storageDataPath: dataDir, snapshotCreateUrl: 'http://127.0.0.1:1/snapshot/create', snapshotDeleteUrl: 'http://127.0.0.1:1/snapshot/delete',
    objectStore: { credsFilePath: '', configFilePath: '', configProfile: '', customObjEndpoint: '', forcePathStyle: true, storageClass: undefined, env: {} },
    enabled: { hourly: true, daily: false, weekly: true, monthly: false }, keepLast: { hourly: 3 }, runOnStart: true, concurrency: 1, maxBytesPerSecond: 0,
  };
});
afterEach(async () => {
  log.stop();
  await tmp.cleanup();
});

const openRemote = async (url: string): Promise<RemoteFs> => {
  opened.push(url);
  return new FsRemote({ root: url.slice('fs://'.length), fsync: false });
};

describe('initBackupManager', () => {
  it('opens -dst, says what it backs up, and runs on start once the schedule starts', async () => {
    const bm = await initBackupManager(options, { logger: log.logger, snapshots, openRemote });
    expect(opened).toEqual([options.dst]);
    expect(log.messages()[0]).toBe(`backing up "${dataDir}" through snapshots of http://127.0.0.1:1/snapshot/create to ${options.dst}; intervals: hourly, weekly; retention: last 3 hourly`);
    bm.startSchedule();
    await new Promise((r) => setTimeout(r, 20));
    await bm.runner.idle();
    expect((await bm.api.listBackups()).map((b) => b.name).filter((n) => !n.startsWith('hourly/') && !n.startsWith('weekly/'))).toEqual(['latest']);
    expect((await bm.api.listBackups())).toHaveLength(3);
    await bm.stop();
  });

  it('stops at once while the schedule waits for an API run, and the run deletes its snapshot', async () => {
    const bm = await initBackupManager({ ...options, maxBytesPerSecond: 1 }, { logger: log.logger, snapshots, openRemote });
    bm.api.startBackup(); // 1002 bytes at 1 B/s
    bm.startSchedule(); // runOnStart: due now, but waits for the API run
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await bm.stop();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(snapshots.created).toHaveLength(1);
    expect(snapshots.deleted).toEqual(snapshots.created);
  });
});
