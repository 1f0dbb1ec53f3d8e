// Faults at process level with a stand-in snapshot API: the destination failing in the middle
// of an upload (S3 through fauxqs behind a proxy whose link is cut), and the process killed in
// the middle of a backup. In both cases the next run completes the backup, transferring only
// what is missing, and the snapshot of the failed run is deleted when the process survives.

import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backup, createRemoteFs, createRestoreMark, FsRemote } from '../../src/lib/backup/index.ts';
import { makeTree, readTree, tempDir, type TempDir } from '../../src/lib/backup/testing/tree.ts';
import { startS3Emulator, type RunningServer } from '../backup/servers.ts';
import { startCutProxy, type CutProxy } from './cut-proxy.ts';
import { startFakeSnapshotServer, type FakeSnapshotServer } from './fake-snapshot-server.ts';
import { BINARY, killStarted, metricOf, runCommand, startBackupManager, startTracked } from './harness.ts';

let tmp: TempDir;
let live: string;
let dataDir: string;
let snapshots: FakeSnapshotServer;
// four files of 128 KiB at 128 KiB/s with one worker: the first part passes at once (the
// throttle's burst), each next one takes a second
const KiB = 1024;
const liveFiles: Record<string, string> = {
  'data/p1/a.bin': 'a'.repeat(128 * KiB), 'data/p1/b.bin': 'b'.repeat(128 * KiB), 'data/p2/c.bin': 'c'.repeat(128 * KiB), 'indexdb/d.bin': 'd'.repeat(128 * KiB),
};
const slow = ['-concurrency=1', '-maxBytesPerSecond=128KiB'];

beforeAll(async () => {
  tmp = await tempDir('bm-faults');
  live = join(tmp.path, 'live');
  dataDir = join(tmp.path, 'data');
  await makeTree(live, liveFiles);
  snapshots = await startFakeSnapshotServer(dataDir, live);
});
afterAll(async () => {
  await killStarted();
  await snapshots?.stop();
  await tmp.cleanup();
});

describe('destination failing mid-upload (S3 through fauxqs)', () => {
  let s3: RunningServer;
  let proxy: CutProxy;
  let s3Flags: string[];
  beforeAll(async () => {
    s3 = await startS3Emulator(['backups']);
    proxy = await startCutProxy(Number(new URL(s3.endpoint).port));
    const creds = join(tmp.path, 'aws-credentials');
    await writeFile(creds, '[backup]\naws_access_key_id = test\naws_secret_access_key = test\nregion = us-east-1\n');
    s3Flags = ['-dst=s3://backups/cluster/node-0', `-credsFilePath=${creds}`, '-configProfile=backup', `-customObjEndpoint=http://127.0.0.1:${proxy.port}`];
  });
  afterAll(async () => {
    await proxy.stop();
    await s3.stop();
  });

  it('fails the run, deletes its snapshot, and the next run uploads only the missing parts; restore from S3 reproduces the data', async () => {
    const bm = await startBackupManager([...s3Flags, ...slow, `-storageDataPath=${dataDir}`, `-snapshot.createURL=${snapshots.createUrl}`, '-runOnStart']);
    try {
      await waitFor(async () => (await s3PartsIn(s3.endpoint, 'cluster/node-0/latest/')) >= 1);
      proxy.cut(); // in the middle of the next part
      await bm.proc.waitForOutput(/backup run failed; the next run resumes it/);
      expect(bm.proc.output()).toMatch(/cannot back up snapshot "\S+" to s3:\/\/backups\/cluster\/node-0\/latest: cannot upload part "latest\//);
      expect(snapshots.deleted).toEqual(snapshots.created);
      const metrics = await (await fetch(`${bm.base}/metrics`)).text();
      expect(metricOf(metrics, 'backupmanager_last_run_failed{type="latest"}')).toBe(1);
      expect(metricOf(metrics, 'backupmanager_errors_total{step="latest"}')).toBe(1);

      proxy.heal();
      expect((await fetch(`${bm.base}/api/v1/backups`, { method: 'POST' })).status).toBe(201);
      await bm.proc.waitForOutput(/backup run finished in/);
      const m = /to s3:\/\/backups\/cluster\/node-0\/latest: uploaded (\d) parts \(\d+ bytes\), kept (\d)/.exec(bm.proc.output());
      const [uploaded, kept] = [Number(m?.[1]), Number(m?.[2])];
      expect(kept).toBeGreaterThanOrEqual(1);
      expect(uploaded + kept).toBe(4);
      const after = await (await fetch(`${bm.base}/metrics`)).text();
      expect(metricOf(after, 'backupmanager_last_run_failed{type="latest"}')).toBe(0);
      expect(snapshots.deleted).toEqual(snapshots.created);

      const mark = await fetch(`${bm.base}/api/v1/restore`, { method: 'POST', body: JSON.stringify({ backup: 'latest' }) });
      expect(await mark.json()).toEqual({ backup: 's3://backups/cluster/node-0/latest' });
    } finally {
      expect(await bm.stop()).toBe(0);
    }
    const restored = await runCommand([...s3Flags, `-storageDataPath=${dataDir}`, 'restore']);
    expect(restored.code).toBe(0);
    expect(await readTree(dataDir)).toEqual(liveFiles);
  });
});

describe('process killed mid-backup', () => {
  it('leaves latest incomplete, and the next run completes it uploading only what is missing', async () => {
    const dst = join(tmp.path, 'killed-dst');
    const flags = [`-dst=fs://${dst}`, ...slow, `-storageDataPath=${dataDir}`, `-snapshot.createURL=${snapshots.createUrl}`, '-runOnStart'];
    const killedSnapshots = startedSnapshots();
    const first = await startBackupManager(flags);
    await waitFor(async () => (await partsIn(dst)).length >= 1);
    first.proc.kill('SIGKILL');
    expect(await first.proc.exited).toBe('SIGKILL');
    const partsBefore = (await partsIn(dst)).length;
    expect(partsBefore).toBeLessThan(4);
    expect((await readdir(join(dst, 'latest'))).includes('backup_complete.ignore')).toBe(false);

    const second = await startBackupManager(flags);
    try {
      await second.proc.waitForOutput(/backup run finished in/);
      expect(second.proc.output()).toMatch(new RegExp(`uploaded ${4 - partsBefore} parts \\(\\d+ bytes\\), kept ${partsBefore}`));
      expect((await readdir(join(dst, 'latest'))).includes('backup_complete.ignore')).toBe(true);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    // the killed process could not delete its snapshot; the second run deleted its own
    expect(killedSnapshots()).toEqual({ created: 2, deleted: 1 });
  });
});

// s3PartsIn counts the part objects under `prefix` in the emulator (asked directly, not through the proxy).
async function s3PartsIn(endpoint: string, prefix: string): Promise<number> {
  const xml = await (await fetch(`${endpoint}/backups?list-type=2&prefix=${encodeURIComponent(prefix)}`)).text();
  return [...xml.matchAll(/<Key>[^<]*\/[0-9A-F]{16}_[0-9A-F]{16}_[0-9A-F]{16}<\/Key>/g)].length;
}

function startedSnapshots(): () => { created: number; deleted: number } {
  const [c, d] = [snapshots.created.length, snapshots.deleted.length];
  return () => ({ created: snapshots.created.length - c, deleted: snapshots.deleted.length - d });
}

async function partsIn(dst: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(join(dir, e.name));
      else if (/^[0-9A-F]{16}_[0-9A-F]{16}_[0-9A-F]{16}$/.test(e.name)) out.push(join(dir, e.name));
    }
  };
  await walk(join(dst, 'latest'));
  return out;
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 20_000, pollMs = 20): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

describe('restore faults', () => {
  let backupDir: string;
  let restoreData: string;
  beforeAll(async () => {
    backupDir = join(tmp.path, 'restore-dst');
    await backup(live, new FsRemote({ root: backupDir }), 'latest');
  });
  const restoreCmd = () => runCommand([...slow, `-storageDataPath=${restoreData}`, 'restore']);
  const mark = async () => {
    await createRestoreMark({ dataDir: restoreData, backup: 'latest', dst: new FsRemote({ root: backupDir }), openRemote: (u) => createRemoteFs(u) });
  };

  it('an interrupted restore leaves restore-in-progress, and running restore again finishes it', async () => {
    restoreData = join(tmp.path, 'restore-killed');
    await makeTree(restoreData, { 'data/old/part.bin': 'old data' });
    await mark();
    const proc = startTracked(BINARY, ['-loggerDisableTimestamps', ...slow, `-storageDataPath=${restoreData}`, 'restore']);
    // Killed once a first file is complete (not just begun: on a busy machine the burst of the
    // throttle may not finish before the kill), while the others take a second each.
    await waitFor(async () => (await readdir(join(restoreData, 'data', 'p1')).catch(() => [])).some((f) => !f.endsWith('.restore-tmp')), 20_000, 5);
    proc.kill('SIGKILL');
    await proc.exited;
    const half = await readTree(restoreData);
    expect(half['restore-in-progress']).toBe(`fs://${backupDir}/latest`);
    expect(half['data/old/part.bin']).toBeUndefined();
    expect(Object.keys(half).filter((p) => !p.endsWith('.restore-tmp') && liveFiles[p] === undefined).sort()).toEqual(['backup_restore.ignore', 'restore-in-progress']);

    const again = await restoreCmd();
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/restored fs:\/\/\/\S+\/latest into ".*": 4 files \(524288 bytes\), downloaded \d+ bytes, kept [1-3] files an interrupted attempt had finished/);
    expect(await readTree(restoreData)).toEqual(liveFiles);
  });

  it('refuses a corrupt or incomplete backup with a clear error and leaves the data dir untouched', async () => {
    restoreData = join(tmp.path, 'restore-refused');
    await makeTree(restoreData, { 'data/old/part.bin': 'old data' });
    await mark();
    const before = await readTree(restoreData);
    const remote = new FsRemote({ root: backupDir });
    const part = 'latest/data/p2/c.bin/0000000000020000_0000000000000000_0000000000020000';
    const f = async (damage: () => Promise<unknown>, repair: () => Promise<unknown>, want: RegExp) => {
      await damage();
      const res = await restoreCmd();
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(want);
      expect(await readTree(restoreData)).toEqual(before);
      await repair();
    };
    const saved = await remote.readFile(part);
    // a whole file lost
    await f(() => remote.delete(part), () => remote.writeFile(part, saved ?? ''), /cannot restore fs:\/\/\/\S+\/latest into ".*": backup is corrupt or incomplete: it was made of 4 files \(524288 bytes\) but its parts make 3 files \(393216 bytes\)/);
    // a truncated part
    await f(() => remote.writeFile(part, 'short'), () => remote.writeFile(part, saved ?? ''), /backup is corrupt or incomplete: part "data\/p2\/c\.bin\/\S+" has 5 bytes, its name says 131072/);
    // not complete
    await f(() => remote.delete('latest/backup_complete.ignore'), () => remote.writeFile('latest/backup_complete.ignore', ''), /cannot restore fs:\/\/\/\S+\/latest: it does not exist or is not complete/);
    // repaired: restores
    expect((await restoreCmd()).code).toBe(0);
    expect(await readTree(restoreData)).toEqual(liveFiles);
  });
});
