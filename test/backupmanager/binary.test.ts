// The backupmanager binary end to end with a stand-in snapshot API: serving, scheduling on start,
// the API and every CLI command, metrics, auth, shutdown, and the restore command.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTree, readTree, tempDir, type TempDir } from '../../src/lib/backup/testing/tree.ts';
import { startFakeSnapshotServer, type FakeSnapshotServer } from './fake-snapshot-server.ts';
import { basicAuth, killStarted, metricOf, runCommand, startBackupManager, type RunningBackupManager } from './harness.ts';

let tmp: TempDir;
let live: string;
let dataDir: string;
let dst: string;
let snapshots: FakeSnapshotServer;
let bm: RunningBackupManager;
const auth = basicAuth('admin', 'secret-pw');
const liveFiles = { 'data/small/2024_03/p1/values.bin': 'v'.repeat(5000), 'data/small/2024_03/p1/timestamps.bin': 't'.repeat(3000), 'indexdb/1/items.bin': 'i'.repeat(700), 'indexdb/1/metadata.json': '{}' };

beforeAll(async () => {
  tmp = await tempDir('bm-binary');
  live = join(tmp.path, 'live');
  dataDir = join(tmp.path, 'data');
  dst = join(tmp.path, 'dst');
  await makeTree(live, liveFiles);
  snapshots = await startFakeSnapshotServer(dataDir, live);
  bm = await startBackupManager([
    `-dst=fs://${dst}`, `-storageDataPath=${dataDir}`, `-snapshot.createURL=${snapshots.createUrl}`, '-runOnStart',
    '-httpAuth.username=admin', '-httpAuth.password=secret-pw', '-keepLastHourly=5',
  ]);
  await bm.proc.waitForOutput(/backup run finished in/);
});
afterAll(async () => {
  await killStarted();
  await snapshots?.stop();
  await tmp.cleanup();
});

const api = `-apiURL=`;
const cli = (...args: string[]) => runCommand([`${api}${bm.base}`, '-httpAuth.username=admin', '-httpAuth.password=secret-pw', ...args]);

describe('backupmanager binary', () => {
  it('runs a backup on start from a snapshot it deletes afterwards', async () => {
    expect(snapshots.created).toHaveLength(1);
    expect(snapshots.deleted).toEqual(snapshots.created);
    expect(await readdir(join(dataDir, 'snapshots'))).toEqual([]);
    const res = await fetch(`${bm.base}/api/v1/backups`, { headers: auth });
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { name: string }[]).map((b) => b.name);
    expect(names).toHaveLength(5);
    expect(names).toContain('latest');
    expect(names.filter((n) => /^(hourly|daily|weekly|monthly)\//.test(n))).toHaveLength(4);
    expect(bm.proc.output()).toMatch(/backed up snapshot "\S+" to fs:\/\/\/\S+\/latest: uploaded 4 parts \(8702 bytes\), kept 0/);
    // then hourly, on the hour
    const next = (await bm.proc.waitForOutput(/backup run finished in[\s\S]*next backup run at (\S+)/))[1] ?? '';
    expect(next).toBe(new Date(Math.floor(Date.now() / 3600_000) * 3600_000 + 3600_000).toISOString());
  });

  it('exposes its metrics and protects everything but /health with -httpAuth.*', async () => {
    expect((await fetch(`${bm.base}/api/v1/backups`)).status).toBe(401);
    expect((await fetch(`${bm.base}/metrics`)).status).toBe(401);
    expect((await fetch(`${bm.base}/health`)).status).toBe(200);
    const text = await (await fetch(`${bm.base}/metrics`, { headers: auth })).text();
    expect(metricOf(text, 'backupmanager_last_success_timestamp_seconds{type="latest"}')).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(metricOf(text, 'backupmanager_last_success_timestamp_seconds{type="monthly"}')).toBeGreaterThan(0);
    expect(metricOf(text, 'backupmanager_last_run_failed{type="latest"}')).toBe(0);
    expect(metricOf(text, 'backupmanager_backup_in_progress')).toBe(0);
    expect(metricOf(text, 'backupmanager_bytes_uploaded_total')).toBe(8702);
    expect(metricOf(text, 'backupmanager_bytes_server_side_copied_total')).toBe(4 * 8702);
    expect(metricOf(text, 'backupmanager_runs_total{trigger="schedule"}')).toBe(1);
    expect(text).toMatch(/backupmanager_backup_duration_seconds_count\{type="latest"\} 1/);
    // the flags page masks the password
    expect(await (await fetch(`${bm.base}/flags`, { headers: auth })).text()).toMatch(/-httpAuth\.password="secret"/);
  });

  it('POST /api/v1/backups runs a backup now that uploads nothing when the data did not change', async () => {
    const before = bm.proc.output().length;
    const res = await fetch(`${bm.base}/api/v1/backups`, { method: 'POST', headers: auth });
    expect(res.status).toBe(201);
    await bm.proc.waitForOutput(/backup run finished in[\s\S]*backup run finished in/);
    expect(bm.proc.output().slice(before)).toMatch(/to fs:\/\/\/\S+\/latest: uploaded 0 parts \(0 bytes\), kept 4/);
    expect(snapshots.deleted).toEqual(snapshots.created);
  });

  // Twelve CLI processes, one after another: a minute and more on a busy 2-core machine.
  it('serves every CLI command through -apiURL', { timeout: 120_000 }, async () => {
    const list = await cli('backup', 'list');
    expect(list.code).toBe(0);
    const backups = JSON.parse(list.stdout) as { name: string; locked?: boolean }[];
    const daily = backups.find((b) => b.name.startsWith('daily/'))?.name ?? '';
    expect(backups.every((b) => b.locked === undefined)).toBe(true);

    const lock = await cli('backup', 'lock', daily);
    expect([lock.code, JSON.parse(lock.stdout)]).toEqual([0, expect.objectContaining({ name: daily, locked: true })]);
    const unlock = await cli('backup', 'unlock', daily);
    expect([unlock.code, JSON.parse(unlock.stdout)]).toEqual([0, expect.objectContaining({ name: daily, locked: false })]);

    const url = `fs://${dst}/${daily}`;
    const none = await cli('restore', 'get');
    expect([none.code, none.stdout]).toEqual([0, '']);
    expect(none.stderr).toMatch(/no restore mark/);
    const create = await cli('restore', 'create', daily);
    expect([create.code, JSON.parse(create.stdout)]).toEqual([0, { backup: url }]);
    expect(await readFile(join(dataDir, 'backup_restore.ignore'), 'utf8')).toBe(url);
    const get = await cli('restore', 'get');
    expect([get.code, JSON.parse(get.stdout)]).toEqual([0, { backup: url }]);
    const del = await cli('restore', 'delete');
    expect(del.code).toBe(0);
    expect((await cli('restore', 'get')).stdout).toBe('');

    const missing = await cli('backup', 'lock', 'daily/2001-01-01');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/failed with HTTP 404: backup "daily\/2001-01-01" does not exist/);
    const usage = await cli('backup', 'explode');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown command "backup explode"/);
  });

  it('restore does nothing without a mark, and restores the marked backup once the storage is stopped', async () => {
    const flags = [`-dst=fs://${dst}`, `-storageDataPath=${dataDir}`];
    const nothing = await runCommand([...flags, 'restore']);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toMatch(/no restore mark in ".*"; nothing to restore/);
    expect((await cli('restore', 'create', 'latest')).code).toBe(0);
    // the storage holds the data dir: refused, nothing touched
    await makeTree(dataDir, { 'flock.lock': String(process.pid), 'data/old.bin': 'old' });
    const refused = await runCommand([...flags, 'restore']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot restore fs:\/\/\/\S+\/latest into ".*": cannot restore into ".*": a storage process holds it; stop the storage first/);
    expect((await readTree(dataDir))['data/old.bin']).toBe('old');
    // stopped: restored exactly, mark gone
    await makeTree(dataDir, { 'flock.lock': '' });
    const restored = await runCommand([...flags, 'restore']);
    expect(restored.code).toBe(0);
    expect(restored.stderr).toMatch(/restored fs:\/\/\/\S+\/latest into ".*": 4 files \(8702 bytes\), downloaded 8702 bytes/);
    expect(await readTree(dataDir)).toEqual(liveFiles);
  });

  it('stops on SIGTERM with status 0', async () => {
    expect(await bm.stop()).toBe(0);
    expect(bm.proc.output()).toMatch(/stopped backupmanager in/);
  });
});
