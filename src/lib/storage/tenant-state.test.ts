import { describe, expect, it } from 'vitest';
import { CacheGroup } from './series-cache.ts';
import { DeletedSeries, TenantState } from './tenant-state.ts';

describe('TenantState.activeSeries', () => {
  it('counts series written in the current or the previous clock hour', () => {
    const t = new TenantState({ accountID: 1, projectID: 2 }, new CacheGroup(1 << 20));
    const f = (hour: number, want: number) => expect(t.activeSeries(hour)).toBe(want);
    t.markActive(1, 100);
    t.markActive(2, 100);
    f(100, 2);
    t.markActive(2, 101);
    t.markActive(3, 101);
    // 1 and 2 from hour 100, 2 and 3 from hour 101
    f(101, 3);
    // at hour 102 only hour 101 still counts
    f(102, 2);
    // a gap of hours forgets everything
    f(105, 0);
    expect(t.name).toBe('1:2');
  });
});

describe('DeletedSeries', () => {
  it('counts per tenant and keeps a sorted snapshot', () => {
    const d = new DeletedSeries();
    expect(d.add(5, '0:0')).toBe(true);
    expect(d.add(5, '0:0')).toBe(false);
    d.add(2, '1:0');
    expect([d.countOf('0:0'), d.countOf('1:0'), d.countOf('9:9')]).toEqual([1, 1, 0]);
    expect(Array.from(d.sorted())).toEqual([2, 5]);
    d.add(3, '1:0');
    expect(Array.from(d.sorted())).toEqual([2, 3, 5]);
  });
});
