import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsRemote, type EnabledIntervals } from '../../lib/backup/index.ts';
import { makeTree, tempDir, type TempDir } from '../../lib/backup/testing/tree.ts';
import type { RunContext } from './backup-run.ts';
import { BackupRunner } from './backup-runner.ts';
import { ApiError } from './errors.ts';
import { captureLogger, fakeSnapshots, metricValue, type CapturedLogger, type FakeSnapshots } from './testing.test-helpers.ts';

const all: EnabledIntervals = { hourly: true, daily: true, weekly: true, monthly: true };
let tmp: TempDir;
let dataDir: string;
let snapshots: FakeSnapshots;
let log: CapturedLogger;
let ctx: RunContext;

beforeEach(async () => {
  tmp = await tempDir('bm-runner');
  dataDir = join(tmp.path, 'data');
  await makeTree(join(tmp.path, 'live'), { 'data/p1/values.bin': 'v'.repeat(100), 'indexdb/meta.json': '{}' });
  snapshots = fakeSnapshots(dataDir, join(tmp.path, 'live'));
  log = captureLogger();
  ctx = {
    dst: new FsRemote({ root: join(tmp.path, 'dst'), fsync: false }), snapshots, storageDataPath: dataDir, enabled: all, keepLast: {},
    concurrency: 2, maxBytesPerSecond: 0, now: Date.now, logger: log.logger,
  };
});
afterEach(async () => {
  log.stop();
  await tmp.cleanup();
});

describe('BackupRunner', () => {
  it('runs one backup at a time and refuses a second start with an in-progress error', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const create = snapshots.create.bind(snapshots);
    const runner = new BackupRunner({ ...ctx, snapshots: { ...snapshots, create: async () => { await gate; return create(); } } });
    const runsBefore = await metricValue('backupmanager_runs_total', { trigger: 'api' });
    const first = runner.start('api');
    expect(runner.running).toBe(true);
    expect(await metricValue('backupmanager_backup_in_progress')).toBe(1);
    let err: unknown;
    try {
      runner.start('schedule');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as Error).message).toMatch(/^backup to fs:\/\/\/\S+ is in progress since \d{4}-\d\d-\d\dT[\d:.]+Z; try again when it finishes$/);
    release();
    const outcome = await first;
    expect(outcome.ok).toBe(true);
    expect(runner.running).toBe(false);
    expect(await metricValue('backupmanager_backup_in_progress')).toBe(0);
    expect(await metricValue('backupmanager_runs_total', { trigger: 'api' })).toBe(runsBefore + 1);
    expect((await runner.start('api')).ok).toBe(true); // free again
  });

  it('reports a failed run as an outcome and a log line, never a rejection', async () => {
    snapshots.failCreate = new Error('connection refused');
    const runner = new BackupRunner(ctx);
    const outcome = await runner.start('schedule');
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.error.message).toBe('cannot create a snapshot: connection refused');
    expect(log.lines.some((l) => l.startsWith('error\t') && l.includes('backup run failed; the next run resumes it, transferring only what is missing: cannot create a snapshot: connection refused'))).toBe(true);
  });

  it('stop aborts the run in flight, waits until its snapshot is deleted and refuses new runs', async () => {
    const runner = new BackupRunner({ ...ctx, maxBytesPerSecond: 1 }); // 102 bytes at 1 B/s: minutes
    const run = runner.start('api');
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await runner.stop();
    expect(Date.now() - t0).toBeLessThan(2000);
    const outcome = await run;
    expect(outcome.ok ? '' : outcome.error.message).toMatch(/the backup manager is stopping/);
    expect(snapshots.deleted).toEqual(snapshots.created);
    expect(snapshots.created).toHaveLength(1);
    expect(() => runner.start('api')).toThrow(/the backup manager is stopping/);
  });
});
