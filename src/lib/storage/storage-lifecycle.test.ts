import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../storageapi/api.ts';
import { LOCK_FILE, RESTORE_IN_PROGRESS } from './lock.ts';
import { listSegments } from './wal/wal.ts';
import { FakeClock, T0, TempDirs, collect, m, never, openTest, query, row } from './testdata/helpers.ts';

// The Storage facade over its lifetime: opening (after a crash, over leftovers, locked), closing,
// snapshots and their expiry. storage.test.ts has reads, writes and deletion.
const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const DAY = 86_400_000;
const upQ = (min = T0 - DAY, max = T0) => query([[m('__name__', '=', 'up')]], min, max);

describe('Storage startup and shutdown', () => {
  it('does not replay flushed samples after a restart, and replays only the unflushed tail after a crash', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    const s = await openTest(dir, clock);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up' }, T0 - 3000, 1)]);
    await s.forceFlush();
    expect(listSegments(join(dir, 'wal'))).toHaveLength(1);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up' }, T0 - 2000, 2), row({ __name__: 'new' }, T0 - 2000, 2)]);
    const copy = dirs.make();
    cpSync(dir, copy, { recursive: true });
    await s.close();
    const crashed = await openTest(copy, clock);
    expect(crashed.stats().pendingRows).toBe(2);
    expect(await collect(crashed.searchSeries(query([[m('__name__', '=~', '.+')]], 0, T0), never()))).toEqual({
      '{__name__=new}': [[T0 - 2000, 2]],
      '{__name__=up}': [[T0 - 3000, 1], [T0 - 2000, 2]],
    });
    expect(await crashed.seriesCount(DEFAULT_TENANT, never())).toBe(2);
    await crashed.close();
    const clean = await openTest(dir, clock);
    expect(clean.stats().pendingRows).toBe(0);
    // the empty segment of the previous run goes at the first flush: segments do not pile up
    await clean.forceFlush();
    expect(listSegments(join(dir, 'wal'))).toHaveLength(1);
    await clean.close();
  });

  it('removes half-written parts and temp dirs at startup', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    let s = await openTest(dir, clock);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up' }, T0 - 3000, 1)]);
    await s.close();
    const part = join(dir, 'data', '2024_03');
    mkdirSync(join(part, 'tmp', '0123'), { recursive: true });
    mkdirSync(join(part, '0000000000000000deadbeef'));
    writeFileSync(join(part, '0000000000000000deadbeef', 'values.bin'), 'half');
    mkdirSync(join(dir, 'indexdb', 'tmp', 'x'), { recursive: true });
    mkdirSync(join(dir, 'snapshots', '20240101000000-0000000000000000.tmp'), { recursive: true });
    s = await openTest(dir, clock);
    expect(readdirSync(part).filter((f) => f !== 'parts.json')).toHaveLength(1);
    expect(existsSync(join(dir, 'indexdb', 'tmp'))).toBe(false);
    expect(readdirSync(join(dir, 'snapshots'))).toEqual([]);
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual({ '{__name__=up}': [[T0 - 3000, 1]] });
    await s.close();
  });

  it('refuses a directory under restore and one locked by a live process', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    writeFileSync(join(dir, RESTORE_IN_PROGRESS), '');
    await expect(openTest(dir, clock)).rejects.toThrow(/restore is in progress.*restore-in-progress/);
    const dir2 = dirs.make();
    const s = await openTest(dir2, clock);
    await expect(openTest(dir2, clock)).rejects.toThrow(/already open in this process/);
    await s.close();
    // pid 1 is always alive: a lock naming it belongs to someone else
    writeFileSync(join(dir2, LOCK_FILE), '1\n');
    await expect(openTest(dir2, clock)).rejects.toThrow(/process 1 holds it/);
    // a lock of a dead process is stale and taken over
    writeFileSync(join(dir2, LOCK_FILE), '2147483000\n');
    const again = await openTest(dir2, clock);
    await again.close();
    expect(existsSync(join(dir2, LOCK_FILE))).toBe(false);
  });

  it('closes cleanly while maintenance and background merges run', async () => {
    const s = await openTest(dirs.make(), new FakeClock(), { backgroundMerges: true, backgroundThreads: 1, maxBufferedRows: 8 });
    for (let i = 0; i < 40; i++) await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', i: String(i % 4) }, T0 - 10_000 + i, i)]);
    const maintenance = s.runMaintenance().then(
      () => 'done',
      (e: unknown) => String(e),
    );
    await s.close();
    expect(await maintenance).toMatch(/done|closing|closed/);
  });

  it('rejects calls after close', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    await s.close();
    await expect(s.addRows(DEFAULT_TENANT, [row({ __name__: 'up' }, T0, 1)])).rejects.toThrow(/closed/);
    await expect(s.labelNames(upQ(), 0, never())).rejects.toThrow(/closed/);
  });
});

describe('Storage snapshots', () => {
  it('creates a snapshot that works as a data directory on its own', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    const s = await openTest(dir, clock);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'a' }, T0 - 3000, 1)]);
    await s.forceFlush();
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'b' }, T0 - 2000, 2)]);
    await s.deleteSeries(query([[m('job', '=', 'a')]], 0, 0), never());
    const name = await s.createSnapshot();
    expect(name).toMatch(/^20240315120000-[0-9A-F]{16}$/);
    expect(await s.listSnapshots()).toEqual([name]);
    // data written after the snapshot is not in it; merges after it do not change it
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'c' }, T0 - 1000, 3)]);
    await s.forceMerge();
    const restored = dirs.make();
    cpSync(join(dir, 'snapshots', name), restored, { recursive: true });
    const r = await openTest(restored, clock);
    expect(await collect(r.searchSeries(upQ(), never()))).toEqual({ '{__name__=up,job=b}': [[T0 - 2000, 2]] });
    await r.close();
    await expect(s.deleteSnapshot('../data')).rejects.toThrow(/invalid snapshot name/);
    await expect(s.deleteSnapshot('20240315120000-0000000000000000')).rejects.toThrow(/no such snapshot/);
    await s.createSnapshot();
    expect(s.stats().snapshots).toBe(2);
    await s.deleteSnapshot(name);
    expect(await s.listSnapshots()).toHaveLength(1);
    await s.deleteAllSnapshots();
    expect(await s.listSnapshots()).toEqual([]);
    await s.close();
  });
});

describe('Storage maintenance', () => {
  it('deletes snapshots older than snapshotsMaxAge', async () => {
    const clock = new FakeClock();
    const s = await openTest(dirs.make(), clock, { snapshotsMaxAgeMs: 3_600_000 });
    const old = await s.createSnapshot();
    clock.t += 2 * 3_600_000;
    const fresh = await s.createSnapshot();
    await s.runMaintenance();
    expect(await s.listSnapshots()).toEqual([fresh]);
    expect(old < fresh).toBe(true);
    await s.close();
  });
});
