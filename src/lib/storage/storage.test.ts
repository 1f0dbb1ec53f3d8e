import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../storageapi/api.ts';
import { LimitExceededError } from '../storageapi/errors.ts';
import { STALE_NAN, isStaleNaN } from '../storageapi/stale.ts';
import { BufferMemory } from './buffer/raw-buffer.ts';
import { FakeClock, T0, TempDirs, collect, m, never, openTest, query, row } from './testdata/helpers.ts';

// The Storage facade: writes, reads, deletion, retention, limits and stats (opening, closing and
// snapshots are in storage-lifecycle.test.ts).
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
