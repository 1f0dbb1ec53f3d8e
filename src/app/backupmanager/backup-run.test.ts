import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPLETE_MARKER, FsRemote, listBackups, setBackupLocked, type EnabledIntervals } from '../../lib/backup/index.ts';
import { FaultyRemote } from '../../lib/backup/testing/faulty-remote.ts';
import { makeTree, tempDir, type TempDir } from '../../lib/backup/testing/tree.ts';
import { runBackupOnce, type RunContext } from './backup-run.ts';
import { captureLogger, fakeSnapshots, metricValue, type CapturedLogger, type FakeSnapshots } from './testing.test-helpers.ts';

const all: EnabledIntervals = { hourly: true, daily: true, weekly: true, monthly: true };
let tmp: TempDir;
let live: string;
let dataDir: string;
let dst: FsRemote;
let snapshots: FakeSnapshots;
let log: CapturedLogger;
let t: number;
const signal = new AbortController().signal;

beforeEach(async () => {
  tmp = await tempDir('bm-run');
  live = join(tmp.path, 'live');
  dataDir = join(tmp.path, 'data');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  snapshots = fakeSnapshots(dataDir, live);
  log = captureLogger();
  t = Date.parse('2024-03-05T07:00:00Z');
  await makeTree(live, { 'data/p1/values.bin': 'v'.repeat(100), 'data/p1/timestamps.bin': 't'.repeat(50), 'data/p2/values.bin': 'w'.repeat(30), 'indexdb/meta.json': '{}' });
});
afterEach(async () => {
  log.stop();
  await tmp.cleanup();
});

const ctx = (over: Partial<RunContext> = {}): RunContext => ({
  dst, snapshots, storageDataPath: dataDir, enabled: all, keepLast: {}, concurrency: 1, maxBytesPerSecond: 0, now: () => t, logger: log.logger, ...over,
});
const names = async () => (await listBackups(dst)).map((b) => b.name);
const hour = (h: number) => Date.parse(`2024-03-05T${String(h).padStart(2, '0')}:00:00Z`);

describe('runBackupOnce', () => {
  it('syncs latest from a snapshot, copies it into every due interval and deletes the snapshot', async () => {
    const uploaded = await metricValue('backupmanager_bytes_uploaded_total');
    const copied = await metricValue('backupmanager_bytes_server_side_copied_total');
    const report = await runBackupOnce(ctx(), signal);
    expect(await metricValue('backupmanager_bytes_uploaded_total')).toBe(uploaded + 182);
    expect(await metricValue('backupmanager_bytes_server_side_copied_total')).toBe(copied + 4 * 182);
    expect(report.latest).toMatchObject({ uploadedParts: 4, uploadedBytes: 182 });
    expect(report.copies.map((c) => c.to)).toEqual(['hourly/2024-03-05:07', 'daily/2024-03-05', 'weekly/2024-10', 'monthly/2024-03']);
    expect(report.copies.every((c) => c.copiedParts === 4)).toBe(true);
    expect(await names()).toEqual(['daily/2024-03-05', 'hourly/2024-03-05:07', 'latest', 'monthly/2024-03', 'weekly/2024-10']);
    expect(snapshots.deleted).toEqual(snapshots.created);
    expect(await readdir(join(dataDir, 'snapshots'))).toEqual([]);
    expect(await metricValue('backupmanager_last_success_timestamp_seconds', { type: 'weekly' })).toBe(t / 1000);
    expect(await metricValue('backupmanager_last_run_failed', { type: 'latest' })).toBe(0);
  });

  it('uploads zero bytes when the data did not change, and the next hour only adds its hourly copy', async () => {
    await runBackupOnce(ctx(), signal);
    const uploadedBefore = await metricValue('backupmanager_bytes_uploaded_total');
    t = hour(8);
    const spy = new FaultyRemote(dst);
    const report = await runBackupOnce(ctx({ dst: spy }), signal);
    expect(spy.callsOf('upload')).toEqual([]);
    expect(report.latest).toMatchObject({ uploadedBytes: 0, keptParts: 4 });
    expect(report.copies.map((c) => c.to)).toEqual(['hourly/2024-03-05:08']);
    expect(await metricValue('backupmanager_bytes_uploaded_total')).toBe(uploadedBefore);
  });

  it('uploads only new parts after the data changed', async () => {
    await runBackupOnce(ctx(), signal);
    await makeTree(live, { 'data/p3/values.bin': 'new' });
    t = hour(8);
    const spy = new FaultyRemote(dst);
    const report = await runBackupOnce(ctx({ dst: spy }), signal);
    expect(spy.callsOf('upload').map((c) => c.path)).toEqual(['latest/data/p3/values.bin/0000000000000003_0000000000000000_0000000000000003']);
    expect(report.latest).toMatchObject({ uploadedBytes: 3, keptParts: 4 });
  });

  it('deletes the snapshot and leaves latest incomplete when the destination fails mid-upload; the next run uploads only what is missing', async () => {
    const faulty = new FaultyRemote(dst, (c) => (c.op === 'upload' && c.n === 2 ? { error: new Error('connection reset'), midStream: true } : undefined));
    await expect(runBackupOnce(ctx({ dst: faulty }), signal)).rejects.toThrow(/cannot back up snapshot "\S+" to fs:\/\/\/\S+\/latest: cannot upload part "latest\/.*connection reset/);
    expect(snapshots.deleted).toEqual(snapshots.created);
    expect(await dst.hasFile(`latest/${COMPLETE_MARKER}`)).toBe(false);
    expect(await names()).toEqual([]); // no interval copy of an incomplete latest
    expect(await metricValue('backupmanager_last_run_failed', { type: 'latest' })).toBe(1);
    const spy = new FaultyRemote(dst);
    const report = await runBackupOnce(ctx({ dst: spy }), signal);
    expect(spy.callsOf('upload')).toHaveLength(3);
    expect(report.latest).toMatchObject({ uploadedParts: 3, keptParts: 1 });
    expect(await metricValue('backupmanager_last_run_failed', { type: 'latest' })).toBe(0);
  });

  it('fails without a snapshot to delete when the snapshot cannot be created', async () => {
    const errorsBefore = await metricValue('backupmanager_errors_total', { step: 'snapshot_create' });
    snapshots.failCreate = new Error('HTTP 500: disk full');
    await expect(runBackupOnce(ctx(), signal)).rejects.toThrow('cannot create a snapshot: HTTP 500: disk full');
    expect(snapshots.deleted).toEqual([]);
    expect(await metricValue('backupmanager_errors_total', { step: 'snapshot_create' })).toBe(errorsBefore + 1);
  });

  it('names -storageDataPath when the snapshot is not where it should be, and still deletes it', async () => {
    await expect(runBackupOnce(ctx({ storageDataPath: join(tmp.path, 'elsewhere') }), signal))
      .rejects.toThrow(/snapshot "\S+" is not at ".*elsewhere\/snapshots\/\S+": -storageDataPath must be the storage's own data path/);
    expect(snapshots.deleted).toEqual(snapshots.created);
  });

  it('keeps making the other interval copies when one fails, and then skips retention', async () => {
    await runBackupOnce(ctx({ enabled: { ...all, daily: false } }), signal); // weekly/2024-10 exists
    t = Date.parse('2024-03-06T07:00:00Z');
    const faulty = new FaultyRemote(dst, (c) => (c.op === 'copy' && c.path.startsWith('daily/') ? { error: new Error('quota exceeded') } : undefined));
    await expect(runBackupOnce(ctx({ dst: faulty, keepLast: { weekly: 0 } }), signal)).rejects.toThrow(/cannot copy "latest" to "daily\/2024-03-06" in fs:\/\/\/\S+: .*quota exceeded/);
    expect(await names()).toEqual(['hourly/2024-03-05:07', 'hourly/2024-03-06:07', 'latest', 'monthly/2024-03', 'weekly/2024-10']);
    expect(await metricValue('backupmanager_last_run_failed', { type: 'daily' })).toBe(1);
    expect(await metricValue('backupmanager_last_run_failed', { type: 'hourly' })).toBe(0);
    expect(snapshots.deleted).toEqual(snapshots.created);
  });
});

describe('retention in a run', () => {
  it('deletes unlocked backups beyond -keepLast*, logging the list first; locked ones stay until unlocked', async () => {
    for (const h of [7, 8, 9]) {
      t = hour(h);
      await runBackupOnce(ctx(), signal);
    }
    await setBackupLocked(dst, 'hourly/2024-03-05:07', true);
    t = hour(10);
    const report = await runBackupOnce(ctx({ keepLast: { hourly: 2, daily: 0 } }), signal);
    expect(report.deleted).toEqual(['daily/2024-03-05', 'hourly/2024-03-05:08']);
    expect(log.messages()).toContain('retention: deleting 1 hourly backup (hourly/2024-03-05:08), 1 daily backup (daily/2024-03-05)');
    expect(await names()).toEqual(['hourly/2024-03-05:07', 'hourly/2024-03-05:09', 'hourly/2024-03-05:10', 'latest', 'monthly/2024-03', 'weekly/2024-10']);
    // unlocked, it is deleted by the next cycle
    await setBackupLocked(dst, 'hourly/2024-03-05:07', false);
    t = hour(11);
    const next = await runBackupOnce(ctx({ keepLast: { hourly: 2 } }), signal);
    expect(next.deleted).toEqual(['hourly/2024-03-05:07', 'hourly/2024-03-05:09']);
  });

  it('deletes interval backups of past periods that never completed, never latest', async () => {
    const part = (name: string) => `${name}/f/0000000000000001_0000000000000000_0000000000000001`;
    await dst.writeFile(part('daily/2024-03-04'), 'x');
    await dst.writeFile(part('hourly/2024-03-05:06'), 'x');
    const report = await runBackupOnce(ctx(), signal);
    expect(report.deleted).toEqual(['daily/2024-03-04', 'hourly/2024-03-05:06']);
    expect(log.messages()).toContain('deleting incomplete backups of past periods: daily/2024-03-04, hourly/2024-03-05:06');
    expect((await dst.list('')).some((f) => f.path.startsWith('daily/2024-03-04/') || f.path.startsWith('hourly/2024-03-05:06/'))).toBe(false);
  });
});
