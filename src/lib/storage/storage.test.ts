import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../storageapi/api.ts';
import { LimitExceededError } from '../storageapi/errors.ts';
import { STALE_NAN, isStaleNaN } from '../storageapi/stale.ts';
import { LOCK_FILE, RESTORE_IN_PROGRESS } from './lock.ts';
import { BufferMemory } from './raw-buffer.ts';
import { listSegments } from './wal.ts';
import { FakeClock, T0, TempDirs, collect, m, never, openTest, query, row } from './testdata/helpers.ts';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const DAY = 86_400_000;
const upQ = (min = T0 - DAY, max = T0) => query([[m('__name__', '=', 'up')]], min, max);

describe('Storage write and read', () => {
  it('stores rows and finds them before and after a flush, a merge and a restart', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    let s = await openTest(dir, clock);
    await s.addRows(DEFAULT_TENANT, [
      row({ __name__: 'up', job: 'a' }, T0 - 2000, 1, 'up{job="a"}'),
      row({ __name__: 'up', job: 'b' }, T0 - 2000, 0),
      row({ __name__: 'up', job: 'a' }, T0 - 1000, 1, 'up{job="a"}'),
    ]);
    const want = { '{__name__=up,job=a}': [[T0 - 2000, 1], [T0 - 1000, 1]], '{__name__=up,job=b}': [[T0 - 2000, 0]] };
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want);
    await s.forceFlush();
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'b' }, T0 - 500, 1)]);
    await s.forceMerge();
    const want2 = { ...want, '{__name__=up,job=b}': [[T0 - 2000, 0], [T0 - 500, 1]] };
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want2);
    await s.close();
    s = await openTest(dir, clock);
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want2);
    expect(await s.seriesCount(DEFAULT_TENANT, never())).toBe(2);
    await s.close();
  });

  it('accepts out-of-order and duplicate samples; a duplicate keeps the larger value everywhere', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const l = { __name__: 'up' };
    await s.addRows(DEFAULT_TENANT, [row(l, T0 - 1000, 5), row(l, T0 - 3000, 3), row(l, T0 - 1000, 2)]);
    await s.forceFlush();
    await s.addRows(DEFAULT_TENANT, [row(l, T0 - 2000, 4), row(l, T0 - 1000, 9), row(l, T0 - 3000, 1)]);
    const want = { '{__name__=up}': [[T0 - 3000, 3], [T0 - 2000, 4], [T0 - 1000, 9]] };
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want);
    await s.forceMerge();
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want);
    await s.close();
  });

  it('deduplicates by minScrapeInterval at query time and in merges, keeping the last sample per interval', async () => {
    const s = await openTest(dirs.make(), new FakeClock(), { minScrapeIntervalMs: 10_000 });
    const base = Math.floor(T0 / 10_000) * 10_000 - 60_000;
    const l = { __name__: 'up' };
    await s.addRows(DEFAULT_TENANT, [row(l, base + 1000, 1), row(l, base + 5000, 2), row(l, base + 10_000, 3), row(l, base + 12_000, 4)]);
    const want = { '{__name__=up}': [[base + 10_000, 3], [base + 12_000, 4]] };
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want);
    await s.forceMerge();
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual(want);
    expect(s.stats().tiers.small.rows).toBe(2);
    await s.close();
  });

  it('keeps staleness markers, odd label text and per-day index entries', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    let s = await openTest(dir, clock);
    const odd = { __name__: 'weird', v: 'a\u0000b\u0001c é 漢字 \n' };
    const r = row(odd, T0 - 2 * DAY, 0);
    await s.addRows(DEFAULT_TENANT, [{ ...r, value: STALE_NAN }, row({ __name__: 'up' }, T0 - 10, 1)]);
    await s.close();
    s = await openTest(dir, clock);
    const got = [];
    for await (const x of s.searchSeries(query([[m('v', '=', odd.v)]], T0 - 3 * DAY, T0), never())) got.push(x);
    expect(got).toHaveLength(1);
    expect(got[0]!.labels).toEqual([{ name: '__name__', value: 'weird' }, { name: 'v', value: odd.v }]);
    expect(isStaleNaN(got[0]!.values[0]!)).toBe(true);
    // the series has samples two days ago only: a search over today does not see it
    expect(await s.labelValues(query([], T0 - 60_000, T0), '__name__', 0, never())).toEqual(['up']);
    expect(await s.labelValues(query([], T0 - 3 * DAY, T0), '__name__', 0, never())).toEqual(['up', 'weird']);
    await s.close();
  });
});

describe('Storage with a background worker thread', () => {
  it('flushes, merges and drops deleted series through the worker', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    const s = await openTest(dir, clock, { backgroundThreads: 1, maxBufferedRows: 4 });
    for (let i = 0; i < 5; i++) {
      await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'a' }, T0 - 10_000 + i, i), row({ __name__: 'up', job: 'b' }, T0 - 10_000 + i, -i)]);
    }
    await s.forceFlush();
    expect(s.stats().tiers.small.parts).toBeGreaterThanOrEqual(2);
    await s.deleteSeries(query([[m('job', '=', 'b')]], 0, 0), never());
    await s.forceMerge();
    const st = s.stats();
    expect(st.tiers.small.parts).toBe(1);
    expect(st.tiers.small.rows).toBe(5);
    expect(await collect(s.searchSeries(upQ(), never()))).toEqual({ '{__name__=up,job=a}': [0, 1, 2, 3, 4].map((i) => [T0 - 10_000 + i, i]) });
    await s.close();
  });
});

describe('Storage concurrency', () => {
  it('a search in progress keeps its view while buffers are flushed and parts merged away', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const rows = [];
    for (let i = 0; i < 50; i++) rows.push(row({ __name__: 'up', i: String(i).padStart(2, '0') }, T0 - 5000, i));
    await s.addRows(DEFAULT_TENANT, rows.slice(0, 25));
    await s.forceFlush();
    await s.addRows(DEFAULT_TENANT, rows.slice(25));
    const it = s.searchSeries(upQ(), never())[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    // buffers become parts, parts merge into one; the inputs' files go away on disk
    await s.forceMerge();
    expect(s.stats().tiers.small.parts).toBe(1);
    let n = 1;
    for (let r = await it.next(); !r.done; r = await it.next()) {
      expect(r.value.values[0]).toBe(Number(r.value.labels[1]!.value));
      n++;
    }
    expect(n).toBe(50);
    await s.close();
  });
});

describe('Storage deletion', () => {
  it('hides deleted series at once, survives restarts, and merges drop their samples', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    let s = await openTest(dir, clock);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'a' }, T0 - 1000, 1, 'k1'), row({ __name__: 'up', job: 'b' }, T0 - 1000, 2)]);
    await s.forceFlush();
    expect(await s.deleteSeries(query([[m('job', '=', 'a')]], 0, 0), never())).toBe(1);
    expect(Object.keys(await collect(s.searchSeries(upQ(), never())))).toEqual(['{__name__=up,job=b}']);
    await s.close();
    s = await openTest(dir, clock);
    expect(Object.keys(await collect(s.searchSeries(upQ(), never())))).toEqual(['{__name__=up,job=b}']);
    expect(s.stats().deletedSeries).toBe(1);
    await s.forceMerge();
    expect(s.stats().tiers.small.rows).toBe(1);
    // the same labels again (even through the same rawKey) make a fresh series
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'a' }, T0 - 500, 7, 'k1')]);
    expect(await collect(s.searchSeries(query([[m('job', '=', 'a')]], T0 - DAY, T0), never()))).toEqual({ '{__name__=up,job=a}': [[T0 - 500, 7]] });
    await s.close();
  });

  it('refuses to delete with an empty matcher set', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up' }, T0, 1)]);
    await expect(s.deleteSeries(query([], 0, 0), never())).rejects.toThrow(/at least one matcher/);
    await expect(s.deleteSeries(query([[]], 0, 0), never())).rejects.toThrow(/at least one matcher/);
    expect(await s.seriesCount(DEFAULT_TENANT, never())).toBe(1);
    await s.close();
  });

  it('replays a deletion from the WAL after a crash', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    const s = await openTest(dir, clock);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'a' }, T0 - 1000, 1), row({ __name__: 'up', job: 'b' }, T0 - 1000, 2)]);
    await s.forceFlush();
    await s.deleteSeries(query([[m('job', '=', 'a')]], 0, 0), never());
    // "crash": copy the directory as it is on disk while the storage still runs
    const copy = dirs.make();
    cpSync(dir, copy, { recursive: true });
    await s.close();
    const again = await openTest(copy, clock);
    expect(Object.keys(await collect(again.searchSeries(upQ(), never())))).toEqual(['{__name__=up,job=b}']);
    await again.close();
  });
});

describe('Storage retention', () => {
  it('rejects rows outside retention, hides old samples and drops whole old partitions', async () => {
    const dir = dirs.make();
    const clock = new FakeClock(Date.UTC(2024, 1, 20));
    const s = await openTest(dir, clock, { retentionMs: 10 * DAY });
    const l = { __name__: 'up' };
    await s.addRows(DEFAULT_TENANT, [row(l, clock.t - 11 * DAY, 1), row(l, clock.t - DAY, 2), row(l, clock.t + 3 * DAY, 3)]);
    expect(s.stats().rowsRejected.outside_retention).toBe(2);
    await s.forceFlush();
    expect(readdirSync(join(dir, 'data'))).toEqual(['2024_02']);
    clock.t = Date.UTC(2024, 2, 5);
    await s.addRows(DEFAULT_TENANT, [row(l, clock.t - 1000, 4)]);
    await s.forceFlush();
    expect(readdirSync(join(dir, 'data')).sort()).toEqual(['2024_02', '2024_03']);
    // 2024-02-19 is now 15 days old: hidden, though its partition is not entirely expired
    expect(await collect(s.searchSeries(query([[m('__name__', '=', 'up')]], 0, clock.t), never()))).toEqual({ '{__name__=up}': [[clock.t - 1000, 4]] });
    clock.t = Date.UTC(2024, 2, 12);
    await s.applyRetention();
    expect(readdirSync(join(dir, 'data'))).toEqual(['2024_03']);
    await s.close();
  });
});

describe('Storage limits and validation', () => {
  it('rejects rows breaking limits with errors naming the flag, storing the rest', async () => {
    const s = await openTest(dirs.make(), new FakeClock(), { maxLabelsPerTimeseries: 3, maxLabelValueLen: 8 });
    const f = async (rows: ReturnType<typeof row>[], flag: string | undefined, pattern: RegExp) => {
      const err = await s.addRows(DEFAULT_TENANT, rows).catch((e: unknown) => e);
      if (flag === undefined) expect(err).not.toBeInstanceOf(LimitExceededError);
      else expect((err as LimitExceededError).flag).toBe(flag);
      expect(String(err)).toMatch(pattern);
    };
    await f([row({ __name__: 'ok1' }, T0, 1), row({ __name__: 'x', a: '1', b: '2', c: '3' }, T0, 1)], 'maxLabelsPerTimeseries', /rejected 1 of 2 rows/);
    await f([row({ __name__: 'ok2', a: '123456789' }, T0, 1)], 'maxLabelValueLen', /longer than -maxLabelValueLen=8/);
    await f([row({ __name__: 'ok2', abcdefghij: '1' }, T0, 1)], 'maxLabelValueLen', /-maxLabelValueLen/);
    await f([row({ __name__: 'x' }, Number.NaN, 1)], undefined, /invalid timestamp/);
    await f([{ labels: [{ name: '__name__', value: 'd' }, { name: '__name__', value: 'e' }], timestamp: T0, value: 1 }], undefined, /twice/);
    await f([{ labels: [{ name: 'a', value: '' }], timestamp: T0, value: 1 }], undefined, /no labels/);
    expect(await s.labelValues(query([], T0 - DAY, T0), '__name__', 0, never())).toEqual(['ok1']);
    const st = s.stats();
    expect(st.rowsRejected.too_many_labels).toBe(1);
    expect(st.rowsRejected.label_too_long).toBe(2);
    expect(st.rowsRejected.invalid_labels).toBe(2);
    await expect(s.addRows({ accountID: -1, projectID: 0 }, [])).rejects.toThrow(/invalid tenant/);
    await s.close();
  });
});

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

describe('Storage stats', () => {
  it('reports rows, series, tenants, tiers, WAL and caches', async () => {
    const s = await openTest(dirs.make(), new FakeClock(), { fsyncIntervalMs: 0 });
    const other = { accountID: 3, projectID: 4 };
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'a' }, T0, 1, 'a'), row({ __name__: 'a' }, T0 - 1, 1, 'a'), row({ __name__: 'b' }, T0, 1)]);
    await s.addRows(other, [row({ __name__: 'a' }, T0, 1)]);
    let st = s.stats();
    expect(st.rowsAdded).toBe(4);
    expect(st.seriesCreated).toBe(3);
    expect(st.activeSeries).toBe(3);
    expect(st.pendingRows).toBe(4);
    expect(st.tiers.inmemory.rows).toBe(4);
    expect(st.wal.fsyncs).toBeGreaterThanOrEqual(2);
    expect(st.wal.bytesWritten).toBeGreaterThan(0);
    expect(st.caches.series.hits).toBeGreaterThanOrEqual(1);
    expect(st.tenants.map((t) => [t.accountID, t.projectID, t.activeSeries, t.seriesCreated]).sort()).toEqual([[0, 0, 2, 2], [3, 4, 1, 1]]);
    await s.forceFlush();
    st = s.stats();
    expect(st.pendingRows).toBe(0);
    expect(st.tiers.small.parts).toBe(1);
    expect(st.tiers.small.rows).toBe(4);
    expect(st.index.parts).toBe(1);
    expect(st.flushes).toBe(1);
    await s.close();
  });
});

describe('Storage buffer memory', () => {
  // After a load, the pooled buffers and the recycled active buffer are dropped on the first
  // flush tick that finds nothing buffered: one fresh (never written) buffer remains.
  it('drops pooled buffer memory once nothing is buffered', async () => {
    const maxBufferedRows = 64;
    const s = await openTest(dirs.make(), new FakeClock(), { maxBufferedRows, flushIntervalMs: 10 });
    for (let b = 0; b < 6; b++) {
      await s.addRows(DEFAULT_TENANT, Array.from({ length: maxBufferedRows }, (_, i) => row({ __name__: 'up', i: String(i) }, T0 - b * 1000, i)));
    }
    await s.forceFlush();
    const oneBuffer = new BufferMemory(maxBufferedRows).bytes;
    const f = (want: number) => expect(s.stats().tiers.inmemory.bytes).toBe(want);
    expect(s.stats().tiers.inmemory.bytes).toBeGreaterThan(oneBuffer);
    await new Promise((r) => setTimeout(r, 60));
    f(oneBuffer);
    // Rows still arrive and are found afterwards.
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', i: 'new' }, T0, 7)]);
    expect(await collect(s.searchSeries(query([[m('i', '=', 'new')]], T0 - DAY, T0), never()))).toEqual({ '{__name__=up,i=new}': [[T0, 7]] });
    await s.close();
  });
});
