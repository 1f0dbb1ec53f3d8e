import { describe, expect, it, afterEach } from 'vitest';
import { DEFAULT_TENANT } from '../storageapi/api.ts';
import { FakeClock, T0, TempDirs, collect, m, never, openTest, query, row } from './testdata/helpers.ts';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

describe('Storage basics', () => {
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
    const q = query([[m('__name__', '=', 'up')]], T0 - 3600_000, T0);
    expect(await collect(s.searchSeries(q, never()))).toEqual(want);
    await s.forceFlush();
    expect(await collect(s.searchSeries(q, never()))).toEqual(want);
    await s.addRows(DEFAULT_TENANT, [row({ __name__: 'up', job: 'b' }, T0 - 500, 1)]);
    await s.forceMerge();
    const want2 = { ...want, '{__name__=up,job=b}': [[T0 - 2000, 0], [T0 - 500, 1]] };
    expect(await collect(s.searchSeries(q, never()))).toEqual(want2);
    await s.close();
    s = await openTest(dir, clock);
    expect(await collect(s.searchSeries(q, never()))).toEqual(want2);
    expect(await s.seriesCount(DEFAULT_TENANT, never())).toBe(2);
    await s.close();
  });
});
