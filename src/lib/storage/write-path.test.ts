import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT, type MetricRow } from '../storageapi/api.ts';
import { FakeClock, T0, TempDirs, collect, labels, m, never, openTest, query } from './testdata/helpers.ts';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

describe('WritePath.writeRows', () => {
  it('stores runs of rows that share one labels array (JSON lines, remote write) as one series each', async () => {
    const s = await openTest(dirs.make(), new FakeClock(), { maxLabelsPerTimeseries: 2 });
    const a = labels({ __name__: 'a' });
    const b = labels({ __name__: 'b', x: '1' });
    const wide = labels({ __name__: 'w', x: '1', y: '2' });
    const rows: MetricRow[] = [
      { labels: a, timestamp: T0 - 3000, value: 1 },
      { labels: a, timestamp: T0 - 2000, value: 2 },
      { labels: wide, timestamp: T0 - 2000, value: 9 }, // over the limit: rejected, every time
      { labels: wide, timestamp: T0 - 1000, value: 9 },
      { labels: b, timestamp: -1, value: 7 }, // a bad timestamp between rows of one series
      { labels: b, timestamp: T0 - 1000, value: 3 },
      { labels: a, timestamp: T0 - 1000, value: 4 },
      { labels: labels({ __name__: 'a' }), timestamp: T0 - 500, value: 5 }, // equal labels, another array
    ];
    await expect(s.addRows(DEFAULT_TENANT, rows)).rejects.toThrow(/rejected 3 of 8 rows/);
    expect(await collect(s.searchSeries(query([[m('__name__', '=~', '.+')]], 0, T0), never()))).toEqual({
      '{__name__=a}': [[T0 - 3000, 1], [T0 - 2000, 2], [T0 - 1000, 4], [T0 - 500, 5]],
      '{__name__=b,x=1}': [[T0 - 1000, 3]],
    });
    expect(s.stats().seriesCreated).toBe(2);
    await s.close();
  });
});
