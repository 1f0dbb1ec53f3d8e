import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT, type SeriesSamples } from '../storageapi/api.ts';
import { YIELD_EVERY_ROWS } from './search.ts';
import { STALE_NAN } from '../storageapi/stale.ts';
import { FakeClock, T0, TempDirs, collect, m, never, openTest, query, row } from './testdata/helpers.ts';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const up = { __name__: 'up' };
const upQ = (min: number, max: number) => query([[m('__name__', '=', 'up')]], min, max);
const series = (pairs: [number, number][]) => ({ '{__name__=up}': pairs });

describe('searchSeries read path', () => {
  it('cuts samples to the inclusive range, also at fractional bounds and across blocks', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    // 20,000 samples: more than one block (8,192 rows) after the flush.
    const rows = Array.from({ length: 20_000 }, (_, i) => row(up, T0 - 20_000_000 + i * 1000, i));
    await s.addRows(DEFAULT_TENANT, rows);
    await s.forceFlush();
    const f = async (min: number, max: number, want: [number, number][]) => expect(await collect(s.searchSeries(upQ(min, max), never()))).toEqual(want.length ? series(want) : {});
    const t = (i: number) => T0 - 20_000_000 + i * 1000;
    await f(t(5) - 0.5, t(7) + 0.5, [[t(5), 5], [t(6), 6], [t(7), 7]]);
    await f(t(5) + 0.5, t(7) - 0.5, [[t(6), 6]]);
    await f(t(8191), t(8192), [[t(8191), 8191], [t(8192), 8192]]);
    await f(t(19_999), T0 + 1e9, [[t(19_999), 19_999]]);
    await f(t(5) + 0.1, t(5) + 0.9, []);
    await f(T0 + 1, T0 + 2, []);
    await s.close();
  });

  it('merges a part with buffered rows: sorted, one value per timestamp', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    await s.addRows(DEFAULT_TENANT, [row(up, T0 - 3000, 3), row(up, T0 - 1000, 1)]);
    await s.forceFlush();
    await s.addRows(DEFAULT_TENANT, [row(up, T0 - 2000, 2), row(up, T0 - 1000, 7), row(up, T0 - 4000, 4)]);
    expect(await collect(s.searchSeries(upQ(T0 - 10_000, T0), never()))).toEqual(series([[T0 - 4000, 4], [T0 - 3000, 3], [T0 - 2000, 2], [T0 - 1000, 7]]));
    await s.close();
  });

  it('reads parts that follow on as they are, and sorts and resolves parts that meet or overlap', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const t = (i: number) => T0 - 100_000 + i * 1000;
    const flush = async (pairs: [number, number][]) => {
      await s.addRows(DEFAULT_TENANT, pairs.map(([i, v]) => row(up, t(i), v)));
      await s.forceFlush();
    };
    await flush([[10, 10], [11, 11], [12, 12]]);
    await flush([[13, 13], [14, 14]]); // follows on
    await flush([[14, 40], [15, 15]]); // meets the previous part at 14: the larger value wins
    await flush([[16, 16], [20, 20]]);
    await flush([[17, 17], [18, -1]]); // inside the previous part's span
    await flush([[1, 1], [2, 2]]); // newer part, older samples
    const want: [number, number][] = [[1, 1], [2, 2], [10, 10], [11, 11], [12, 12], [13, 13], [14, 40], [15, 15], [16, 16], [17, 17], [18, -1], [20, 20]];
    expect(await collect(s.searchSeries(upQ(t(0), t(30)), never()))).toEqual(series(want.map(([i, v]) => [t(i), v])));
    expect(await collect(s.searchSeries(upQ(t(13), t(30)), never()))).toEqual(series(want.filter(([i]) => i >= 13).map(([i, v]) => [t(i), v])));
    await s.close();
  });

  it('hands out the same samples with borrow, in views reused for the next series', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const rows = [];
    for (let k = 0; k < 5; k++) for (let i = 0; i < 300 * (k + 1); i++) rows.push(row({ __name__: 'up', k: String(k) }, T0 - 3_000_000 + i * 1000, k * 1e4 + i));
    await s.addRows(DEFAULT_TENANT, rows);
    await s.forceFlush();
    // Rows still buffered as well as a part: both sources are read into the scratch buffers.
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', k: '2' }, T0 - 500, -1), row({ __name__: 'up', k: '9' }, T0 - 700, 9)]);
    const q = upQ(T0 - 2_000_000, T0);
    const owned = await collect(s.searchSeries(q, never()));
    expect(Object.keys(owned)).toHaveLength(4); // k=0 and k=1 end before the range
    expect(await collect(s.searchSeries({ ...q, borrow: true }, never()))).toEqual(owned);
    const buffers = new Set<ArrayBufferLike>();
    for await (const x of s.searchSeries({ ...q, borrow: true }, never())) buffers.add(x.timestamps.buffer);
    expect(buffers.size).toBeLessThan(4);
    await s.close();
  });

  it('gives interleaved borrowing searches buffers of their own, and reuses them once a search ends', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const rows = [];
    for (let k = 0; k < 4; k++) for (let i = 0; i < 200; i++) rows.push(row({ __name__: 'up', k: String(k) }, T0 - 300_000 + i * 1000, k * 1e4 + i));
    await s.addRows(DEFAULT_TENANT, rows);
    await s.forceFlush();
    const q = { ...upQ(T0 - 300_000, T0), borrow: true };
    const owned = await collect(s.searchSeries(upQ(T0 - 300_000, T0), never()));
    // Two searches step by step in turn: each series is read before either search moves on.
    const a = s.searchSeries(q, never())[Symbol.asyncIterator]();
    const b = s.searchSeries(q, never())[Symbol.asyncIterator]();
    const gotA: Record<string, number[]> = {};
    const gotB: Record<string, number[]> = {};
    const used = new Set<ArrayBufferLike>();
    for (;;) {
      const [x, y] = [await a.next(), await b.next()];
      if (x.done === true || y.done === true) break;
      for (const [got, v] of [[gotA, x.value], [gotB, y.value]] as const) {
        got[v.labels.map((l) => `${l.name}=${l.value}`).join(',')] = [...v.values];
        used.add(v.values.buffer);
      }
    }
    expect(used.size).toBe(2);
    const values = Object.fromEntries(Object.values(owned).map((pairs, i) => [i, pairs.map(([, v]) => v)]));
    expect(Object.values(gotA)).toEqual(Object.values(values));
    expect(Object.values(gotB)).toEqual(Object.values(values));
    // A search after both ended takes one of their buffers instead of a fresh one.
    for await (const x of s.searchSeries(q, never())) expect(used.has(x.values.buffer)).toBe(true);
    await s.close();
  });

  it('deduplicates on read a part written without deduplication', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    const base = Math.floor(T0 / 10_000) * 10_000 - 60_000;
    let s = await openTest(dir, clock);
    await s.addRows(DEFAULT_TENANT, [row(up, base + 1000, 1), row(up, base + 5000, 2), row(up, base + 12_000, 4)]);
    await s.forceFlush();
    await s.close();
    s = await openTest(dir, clock, { minScrapeIntervalMs: 10_000 });
    expect(await collect(s.searchSeries(upQ(base, T0), never()))).toEqual(series([[base + 5000, 2], [base + 12_000, 4]]));
    await s.close();
  });

  it('says a series holds no NaN only when its stored blocks show so', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const job = (j: string) => ({ __name__: 'up', job: j });
    const t = (i: number) => T0 - 100_000 + i * 1000;
    await s.addRows(DEFAULT_TENANT, [
      ...[1, 2, 3].map((i) => row(job('plain'), t(i), i / 10)),
      row(job('stale'), t(1), 1), row(job('stale'), t(2), STALE_NAN),
      row(job('nan'), t(1), NaN), row(job('nan'), t(2), 2),
      row(job('const-nan'), t(1), NaN), row(job('const-nan'), t(2), NaN),
      row(job('later'), t(1), 1),
    ]);
    await s.forceFlush();
    // Buffered rows are not vouched for: the series that has some is "unknown".
    await s.addRows(DEFAULT_TENANT, [row(job('later'), t(5), 5), row(job('buffered'), t(5), 5)]);
    const got: Record<string, boolean | undefined> = {};
    for await (const x of s.searchSeries(upQ(T0 - 200_000, T0), never())) {
      got[x.labels.find((l) => l.name === 'job')!.value] = x.noNaN;
      if (x.noNaN === true) expect(x.values.some((v) => Number.isNaN(v))).toBe(false);
    }
    expect(got).toEqual({ plain: true, stale: false, nan: false, 'const-nan': false, later: false, buffered: false });
    await s.close();
  });

  it('reads in batches what searchSeries reads, a batch left partly read going on after its last series read', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const rows = [];
    // 40 series of 2,000 samples: several batches of YIELD_EVERY_ROWS work.
    for (let k = 0; k < 40; k++) for (let i = 0; i < 2000; i++) rows.push(row({ __name__: 'up', k: String(k).padStart(2, '0') }, T0 - 2_100_000 + i * 1000, k * 1e4 + i));
    await s.addRows(DEFAULT_TENANT, rows);
    await s.forceFlush();
    const q = upQ(T0 - 3_000_000, T0);
    const want = await collect(s.searchSeries(q, never()));
    const key = (x: SeriesSamples) => x.labels.map((l) => `${l.name}=${l.value}`).join(',');
    const pairs = (x: SeriesSamples): [number, number][] => [...x.timestamps].map((t, i) => [t, x.values[i]!]);
    const got: Record<string, [number, number][]> = {};
    const sizes: number[] = [];
    for await (const batch of s.searchSeriesBatches({ ...q, borrow: true }, never())) {
      let n = 0;
      for (const x of batch) {
        got[key(x)] = pairs(x);
        n++;
        // The second batch is left after one series: the next one goes on from the series after it.
        if (sizes.length === 1) break;
      }
      sizes.push(n);
    }
    expect(Object.keys(got)).toHaveLength(40);
    expect(Object.values(got)).toEqual(Object.values(want));
    expect(sizes.length).toBeGreaterThan(2);
    expect(sizes.reduce((a, b) => a + b)).toBe(40);
    expect(sizes[0]! * 2100).toBeGreaterThanOrEqual(YIELD_EVERY_ROWS);
    // Leaving the loop ends the search: the next one reads into the scratch it gave back.
    const first = new Set<ArrayBufferLike>();
    for await (const batch of s.searchSeriesBatches({ ...q, borrow: true }, never())) {
      for (const x of batch) {
        first.add(x.values.buffer);
        break;
      }
      break;
    }
    for await (const batch of s.searchSeriesBatches({ ...q, borrow: true }, never())) for (const x of batch) expect(first.has(x.values.buffer)).toBe(true);
    await s.close();
  });
});
