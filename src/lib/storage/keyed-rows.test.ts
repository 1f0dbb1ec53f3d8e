import { afterEach, describe, expect, it } from 'vitest';
import type { Labels } from '../storageapi/api.ts';
import { DEFAULT_TENANT } from '../storageapi/api.ts';
import { LimitExceededError } from '../storageapi/errors.ts';
import type { KeyedRows, KeyTable } from './keyed-rows.ts';
import { FakeClock, T0, TempDirs, collect, labels, m, never, openTest, query } from './testdata/helpers.ts';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());
const DAY = 86_400_000;
const all = (min = T0 - DAY, max = T0) => query([[m('__name__', '=~', '.+')]], min, max);

// batch builds a KeyedRows over table from [key, timestamp, value] triples.
function batch(table: KeyTable, rows: [number, number, number][]): KeyedRows {
  return {
    length: rows.length,
    keys: Int32Array.from(rows, (r) => r[0]),
    timestamps: Float64Array.from(rows, (r) => r[1]),
    values: Float64Array.from(rows, (r) => r[2]),
    table,
  };
}
const table = (...sets: Record<string, string>[]): { labels: Labels[] } => ({ labels: sets.map(labels) });

describe('Storage.addKeyedRows', () => {
  it('stores keyed rows like addRows, through flushes and a restart', async () => {
    const dir = dirs.make();
    const clock = new FakeClock();
    let s = await openTest(dir, clock);
    const t = table({ __name__: 'up', job: 'a' }, { __name__: 'up', job: 'b' });
    await s.addKeyedRows(DEFAULT_TENANT, batch(t, [[0, T0 - 3000, 1], [1, T0 - 3000, 0], [0, T0 - 2000, 1]]));
    await s.forceFlush();
    await s.addKeyedRows(DEFAULT_TENANT, batch(t, [[1, T0 - 2000, 1]]));
    const want = { '{__name__=up,job=a}': [[T0 - 3000, 1], [T0 - 2000, 1]], '{__name__=up,job=b}': [[T0 - 3000, 0], [T0 - 2000, 1]] };
    expect(await collect(s.searchSeries(all(), never()))).toEqual(want);
    await s.close(); // the last batch is only in the WAL and the buffer until close flushes it
    s = await openTest(dir, clock);
    expect(await collect(s.searchSeries(all(), never()))).toEqual(want);
    expect(await s.seriesCount(DEFAULT_TENANT, never())).toBe(2);
    await s.close();
  });

  it('maps the same labels in different tables, and plain rows, to one series', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const l = { __name__: 'up', job: 'a' };
    await s.addKeyedRows(DEFAULT_TENANT, batch(table(l), [[0, T0 - 3000, 1]]));
    await s.addKeyedRows(DEFAULT_TENANT, batch(table({ __name__: 'other' }, l), [[1, T0 - 2000, 2]]));
    await s.addRows(DEFAULT_TENANT, [{ labels: labels(l), timestamp: T0 - 1000, value: 3 }]);
    expect(await collect(s.searchSeries(all(), never()))).toEqual({ '{__name__=up,job=a}': [[T0 - 3000, 1], [T0 - 2000, 2], [T0 - 1000, 3]] });
    expect(s.stats().seriesCreated).toBe(1);
    await s.close();
  });

  it('does not write to a deleted series through a cached key', async () => {
    const s = await openTest(dirs.make(), new FakeClock());
    const t = table({ __name__: 'up', job: 'a' });
    await s.addKeyedRows(DEFAULT_TENANT, batch(t, [[0, T0 - 3000, 1]]));
    expect(await s.deleteSeries(query([[m('job', '=', 'a')]], 0, 0), never())).toBe(1);
    await s.addKeyedRows(DEFAULT_TENANT, batch(t, [[0, T0 - 1000, 2]]));
    expect(await collect(s.searchSeries(all(), never()))).toEqual({ '{__name__=up,job=a}': [[T0 - 1000, 2]] });
    expect(s.stats().seriesCreated).toBe(2);
    await s.close();
  });

  it('rejects what addRows rejects and stores the rest', async () => {
    const f = async (rows: [number, number, number][], want: Record<string, [number, number][]>, error: RegExp | undefined, flag?: string) => {
      const s = await openTest(dirs.make(), new FakeClock(), { maxLabelsPerTimeseries: 2 });
      const t = table({ __name__: 'ok' }, { __name__: 'wide', a: '1', b: '2' }, { __name__: 'ok', z: '' });
      const p = s.addKeyedRows(DEFAULT_TENANT, batch(t, rows));
      if (error === undefined) await p;
      else {
        const err = await p.then(() => undefined, (e: unknown) => e);
        expect(String(err)).toMatch(error);
        if (flag !== undefined) expect((err as LimitExceededError).flag).toBe(flag);
      }
      expect(await collect(s.searchSeries(query([[m('__name__', '=~', '.+')]], 0, T0 + DAY), never()))).toEqual(want);
      await s.close();
    };
    // too many labels: a limit error naming the flag; the good row is stored
    await f([[1, T0 - 1000, 1], [0, T0 - 1000, 2]], { '{__name__=ok}': [[T0 - 1000, 2]] }, /too many labels/, 'maxLabelsPerTimeseries');
    // a timestamp outside 1970..9999 is an error; one outside retention is skipped silently
    await f([[0, -5, 1], [0, T0 - 1000, 2]], { '{__name__=ok}': [[T0 - 1000, 2]] }, /not a time between 1970 and 9999/);
    await f([[0, T0 - 400 * DAY, 1], [0, T0 - 1000.4, 2]], { '{__name__=ok}': [[T0 - 1000, 2]] }, undefined);
    // labels with an empty value are dropped, as in addRows
    await f([[2, T0 - 1000, 3]], { '{__name__=ok}': [[T0 - 1000, 3]] }, undefined);
    // a key number the table does not have is a malformed row
    await f([[7, T0 - 1000, 1], [0, T0 - 1000, 4]], { '{__name__=ok}': [[T0 - 1000, 4]] }, /key 7 is not in its key table of 3 keys/);
  });
});
