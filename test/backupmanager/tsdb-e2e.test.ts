// The backup manager against the real tsdb, to fs:// and to S3 (fauxqs): tsdb with data →
// backup → more data → incremental backup (only new parts uploaded) → a backup of unchanged
// data uploads nothing → restore into a fresh directory and in place (the spec's procedure:
// mark, stop storage, restore, start storage) → tsdb serves exactly the data of each backup.
// Faults with tsdb: restore refused while tsdb runs; an interrupted restore keeps tsdb from
// starting until a retry finishes it; a corrupt backup is refused and tsdb still serves the
// untouched directory.

import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteFs, createRestoreMark, type RemoteFile, type RemoteFsOptions } from '../../src/lib/backup/index.ts';
import { tempDir, type TempDir } from '../../src/lib/backup/testing/tree.ts';
import type { StartedProcess } from '../e2e/process-harness.ts';
import { startS3Emulator, type RunningServer } from '../backup/servers.ts';
import { BINARY, killStarted, runCommand, startBackupManager, startTracked, type RunningBackupManager } from './harness.ts';

let tmp: TempDir;
let s3: RunningServer;
let awsCreds: string;
beforeAll(async () => {
  tmp = await tempDir('bm-tsdb');
  s3 = await startS3Emulator(['backups']);
  awsCreds = join(tmp.path, 'aws-credentials');
  await writeFile(awsCreds, '[default]\naws_access_key_id = test\naws_secret_access_key = test\nregion = us-east-1\n');
});
afterAll(async () => {
  await killStarted();
  await s3?.stop();
  await tmp.cleanup();
});

interface Tsdb {
  readonly proc: StartedProcess;
  readonly base: string;
  stop(): Promise<number | string>;
}

async function startTsdb(dataDir: string): Promise<Tsdb> {
  const proc = startTracked('src/cmd/tsdb.ts', [`-storageDataPath=${dataDir}`, '-httpListenAddr=127.0.0.1:0', '-retentionPeriod=100y', '-loggerDisableTimestamps']);
  const m = await proc.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { proc, base: m[1] ?? '', stop: async () => (proc.child.exitCode === null ? (proc.kill('SIGTERM'), proc.exited) : proc.exited) };
}

// Deterministic samples: `series` series of two metrics, `points` points a minute apart.
function samples(from: number, series: number, points: number, t0: number): string {
  const lines: string[] = [];
  for (let p = 0; p < points; p++) {
    for (let s = from; s < from + series; s++) {
      const ts = t0 + p * 60_000;
      lines.push(`node_cpu_seconds_total{instance="host-${s}",cpu="${s % 4}",mode="user"} ${(s * 1000 + p * 1.25).toFixed(2)} ${ts}`);
      lines.push(`node_memory_free_bytes{instance="host-${s}"} ${(s * 7919 + p * 13) % 100_000} ${ts}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

async function load(base: string, body: string): Promise<void> {
  const res = await fetch(`${base}/api/v1/import/prometheus`, { method: 'POST', body });
  expect({ status: res.status, body: await res.text() }).toEqual({ status: 204, body: '' });
  const flush = await fetch(`${base}/internal/force_flush`);
  expect({ status: flush.status, body: await flush.text() }).toMatchObject({ status: 200 });
}

async function exportAll(base: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/export?${new URLSearchParams({ 'match[]': '{__name__=~".+"}' })}`);
  expect(res.status).toBe(200);
  return res.text();
}

const T0 = Date.now() - 6 * 3600_000;

interface TargetCase {
  readonly name: string;
  dst(): string;
  flags(): string[];
  options(): RemoteFsOptions;
}
const targets: TargetCase[] = [
  { name: 'fs', dst: () => `fs://${join(tmp.path, 'fs-dst')}`, flags: () => [], options: () => ({}) },
  {
    name: 's3 (fauxqs)',
    dst: () => 's3://backups/strata/node-0',
    flags: () => [`-credsFilePath=${awsCreds}`, `-customObjEndpoint=${s3.endpoint}`],
    options: () => ({ s3: { credsFilePath: awsCreds, endpoint: s3.endpoint } }),
  },
];

describe.each(targets)('tsdb backup and restore to $name', (target) => {
  let dataDir: string;
  let tsdb: Tsdb;
  let bm: RunningBackupManager;
  const latestParts = async (): Promise<RemoteFile[]> => {
    const remote = await createRemoteFs(target.dst(), target.options());
    try {
      return (await remote.list('latest')).filter((f) => !f.path.endsWith('.ignore'));
    } finally {
      await remote.close();
    }
  };
  const runs = (n: number) => new RegExp(`(?:backup run (?:finished in|failed)[\\s\\S]*?){${n}}`);
  const nthUpload = (n: number) => {
    const all = [...bm.proc.output().matchAll(/\/latest: uploaded (\d+) parts \((\d+) bytes\), kept (\d+)/g)];
    const m = all[n - 1];
    return { parts: Number(m?.[1]), bytes: Number(m?.[2]), kept: Number(m?.[3]) };
  };
  let export1 = '';
  let export2 = '';
  let firstInterval = '';

  beforeAll(async () => {
    dataDir = join(tmp.path, `data-${target.name.split(' ')[0]}`);
    tsdb = await startTsdb(dataDir);
    await load(tsdb.base, samples(0, 50, 60, T0));
    bm = await startBackupManager([
      `-dst=${target.dst()}`, `-storageDataPath=${dataDir}`, `-snapshot.createURL=${tsdb.base}/snapshot/create`, '-runOnStart', ...target.flags(),
    ]);
    await bm.proc.waitForOutput(runs(1));
  });
  afterAll(async () => {
    // graceful stops where the test got that far; killStarted takes care of the rest
    if (bm?.proc.child.exitCode === null) await bm.stop();
    await tsdb?.stop();
  });

  it('backs up, then uploads only new parts after new data, and nothing when nothing changed', async () => {
    expect(bm.proc.output()).not.toMatch(/backup run failed/);
    export1 = await exportAll(tsdb.base);
    expect(export1.split('\n').filter((l) => l !== '')).toHaveLength(100);
    const backups = (await (await fetch(`${bm.base}/api/v1/backups`)).json()) as { name: string }[];
    firstInterval = backups.map((b) => b.name).find((n) => n.startsWith('hourly/')) ?? '';
    expect(firstInterval).not.toBe('');
    const parts1 = await latestParts();
    expect(nthUpload(1)).toMatchObject({ parts: parts1.length, kept: 0 });

    await load(tsdb.base, samples(50, 20, 30, T0 + 60 * 60_000)); // new series, new hour
    export2 = await exportAll(tsdb.base);
    expect((await fetch(`${bm.base}/api/v1/backups`, { method: 'POST' })).status).toBe(201);
    await bm.proc.waitForOutput(runs(2));
    expect(bm.proc.output()).not.toMatch(/backup run failed/);
    const parts2 = await latestParts();
    const before = new Set(parts1.map((p) => p.path));
    const added = parts2.filter((p) => !before.has(p.path));
    const second = nthUpload(2);
    // exactly the parts that were not there before were uploaded; the rest was kept
    expect(second.parts).toBe(added.length);
    expect(second.bytes).toBe(added.reduce((n, p) => n + p.size, 0));
    expect(second.kept).toBe(parts2.length - added.length);
    expect(second.kept).toBeGreaterThan(0);

    expect((await fetch(`${bm.base}/api/v1/backups`, { method: 'POST' })).status).toBe(201);
    await bm.proc.waitForOutput(runs(3));
    expect(nthUpload(3)).toMatchObject({ parts: 0, bytes: 0, kept: parts2.length });
  });

  it('restores latest into a fresh directory: tsdb serves exactly its data', async () => {
    const fresh = join(tmp.path, `fresh-${target.name.split(' ')[0]}`);
    const dst = await createRemoteFs(target.dst(), target.options());
    await createRestoreMark({ dataDir: fresh, backup: 'latest', dst, openRemote: (u) => createRemoteFs(u, target.options()) });
    await dst.close();
    const res = await runCommand([`-storageDataPath=${fresh}`, ...target.flags(), 'restore']);
    expect([res.code, res.stderr]).toEqual([0, expect.stringMatching(/restored \S+\/latest into/)]);
    const restored = await startTsdb(fresh);
    try {
      expect(await exportAll(restored.base)).toBe(export2);
    } finally {
      await restored.stop();
    }
  });

  it('restores an older backup in place with the spec procedure: mark, stop storage, restore, start storage', async () => {
    const cli = (...args: string[]) => runCommand([`-apiURL=${bm.base}`, ...args]);
    expect((await cli('restore', 'create', firstInterval)).code).toBe(0);
    // while the storage runs, restore refuses and changes nothing
    const refused = await runCommand([`-storageDataPath=${dataDir}`, ...target.flags(), 'restore']);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/a storage process holds it; stop the storage first/)]);
    expect(await exportAll(tsdb.base)).toBe(export2);
    expect(await bm.stop()).toBe(0);
    expect(await tsdb.stop()).toBe(0);
    const res = await runCommand([`-storageDataPath=${dataDir}`, ...target.flags(), 'restore']);
    expect([res.code, res.stderr]).toEqual([0, expect.stringMatching(new RegExp(`restored \\S+/${firstInterval} into`))]);
    expect((await readdir(dataDir)).includes('backup_restore.ignore')).toBe(false);
    tsdb = await startTsdb(dataDir);
    expect(await exportAll(tsdb.base)).toBe(export1);
  });
});

describe('restore faults with tsdb', () => {
  let dataDir: string;
  let dstUrl: string;
  let export1 = '';
  beforeAll(async () => {
    dataDir = join(tmp.path, 'faults-data');
    dstUrl = `fs://${join(tmp.path, 'faults-dst')}`;
    const tsdb = await startTsdb(dataDir);
    await load(tsdb.base, samples(0, 300, 120, T0));
    const bm = await startBackupManager([`-dst=${dstUrl}`, `-storageDataPath=${dataDir}`, `-snapshot.createURL=${tsdb.base}/snapshot/create`, '-runOnStart']);
    await bm.proc.waitForOutput(/backup run finished in/);
    export1 = await exportAll(tsdb.base);
    await bm.stop();
    await tsdb.stop();
  });

  const mark = async (dir: string) => {
    const dst = await createRemoteFs(dstUrl);
    await createRestoreMark({ dataDir: dir, backup: 'latest', dst, openRemote: (u) => createRemoteFs(u) });
  };

  it('an interrupted restore keeps tsdb from starting until a retry finishes it', async () => {
    const dir = join(tmp.path, 'interrupted');
    await mark(dir);
    const restore = startTracked(BINARY, ['-loggerDisableTimestamps', '-concurrency=1', '-maxBytesPerSecond=16KiB', `-storageDataPath=${dir}`, 'restore']);
    await restore.waitForOutput(/restoring \S+ into/);
    await new Promise((r) => setTimeout(r, 1500));
    restore.kill('SIGKILL');
    await restore.exited;
    expect((await readdir(dir)).includes('restore-in-progress')).toBe(true);

    const refused = startTracked('src/cmd/tsdb.ts', [`-storageDataPath=${dir}`, '-httpListenAddr=127.0.0.1:0']);
    expect(await refused.exited).not.toBe(0);
    expect(refused.output()).toMatch(/a restore is in progress \(file "restore-in-progress" exists\)/);

    const retry = await runCommand([`-storageDataPath=${dir}`, 'restore']);
    expect([retry.code, retry.stderr]).toEqual([0, expect.stringMatching(/restored \S+\/latest into/)]);
    const tsdb = await startTsdb(dir);
    try {
      expect(await exportAll(tsdb.base)).toBe(export1);
    } finally {
      await tsdb.stop();
    }
  });

  it('a corrupt backup is refused, and tsdb still serves the untouched directory', async () => {
    await mark(dataDir);
    const dst = await createRemoteFs(dstUrl);
    const victim = (await dst.list('latest')).find((f) => f.path.startsWith('latest/data/') && f.size > 10);
    expect(victim).toBeDefined();
    await dst.writeFile(victim?.path ?? '', 'garbage');
    const res = await runCommand([`-storageDataPath=${dataDir}`, 'restore']);
    expect([res.code, res.stderr]).toEqual([1, expect.stringMatching(/backup is corrupt or incomplete: part "\S+" has 7 bytes, its name says \d+/)]);
    const tsdb = await startTsdb(dataDir);
    try {
      expect(await exportAll(tsdb.base)).toBe(export1);
    } finally {
      await tsdb.stop();
    }
  });
});
