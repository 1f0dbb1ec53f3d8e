import { mkdtempSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Label, LabelMatcher } from '../../storageapi/api.ts';
import { InlineRunner } from '../background/runner.ts';
import { silentLogger } from '../common/logger.ts';
import { LruCache } from '../common/lru-cache.ts';
import { IndexTable } from './index-table.ts';
import { labelNamesOfDays, labelValuesOfDays, tsdbStatusOfDay } from './index-labels.ts';
import { searchIds, type IndexQuery } from './index-search.ts';
import { decodeLabelsKey, labelsKey, tenantKey } from './keys.ts';
import { compileMatcher, labelsMatch } from '../../storageapi/matchers.ts';
import fc from 'fast-check';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-index-'));
  dirs.push(d);
  return d;
}

function open(dir: string, cutoffDay = -1e9): IndexTable {
  return IndexTable.open(dir, { zstdLevel: 1, cache: new LruCache(1 << 20), logger: silentLogger, cutoffDay: () => cutoffDay, runner: new InlineRunner() });
}

const T = tenantKey({ accountID: 0, projectID: 0 });
const OTHER = tenantKey({ accountID: 7, projectID: 1 });
const ls = (o: Record<string, string>): Label[] => Object.keys(o).sort().map((name) => ({ name, value: o[name]! }));

/** fixture: four series on day 10, one of them also on day 11, one in another tenant. */
function fill(t: IndexTable): void {
  const series: [string, number, Record<string, string>, number[]][] = [
    [T, 1, { __name__: 'up', job: 'node', instance: 'a' }, [10]],
    [T, 2, { __name__: 'up', job: 'node', instance: 'b' }, [10, 11]],
    [T, 3, { __name__: 'up', job: 'api' }, [10]],
    [T, 4, { __name__: 'errors_total', job: 'api', code: '500' }, [10]],
    [OTHER, 5, { __name__: 'up', job: 'node', instance: 'secret' }, [10]],
  ];
  for (const [tenant, id, labels, days] of series) {
    const l = ls(labels);
    t.addSeries(tenant, tenant === T ? '0:0' : '7:1', labelsKey(l), id);
    for (const d of days) t.addDay(tenant, d, l, id);
  }
}

function query(t: IndexTable, deleted: number[] = [], tenant = T, minDay = 10, maxDay = 10, byLabels = false): IndexQuery {
  const q: IndexQuery = { view: t.view(), tenant, minDay, maxDay, isDeleted: (id) => deleted.includes(id), signal: new AbortController().signal };
  if (!byLabels) return q;
  return { ...q, labelsOf: (id) => { const k = t.labelsOf(tenant, id); return k === undefined ? undefined : decodeLabelsKey(k, 0); } };
}

type SearchOpts = { deleted?: number[]; tenant?: string; minDay?: number; maxDay?: number; byLabels?: boolean };

function search(t: IndexTable, sets: LabelMatcher[][], opts: SearchOpts = {}): number[] {
  const q = query(t, opts.deleted, opts.tenant, opts.minDay, opts.maxDay, opts.byLabels);
  try {
    return Array.from(searchIds(q, sets.map((s) => s.map(compileMatcher)), 0));
  } finally {
    q.view.release();
  }
}

const m = (name: string, type: LabelMatcher['type'], value: string): LabelMatcher => ({ name, type, value });

describe('IndexTable lookups', () => {
  it('finds series by labels, labels by series and per-day presence, before and after a flush and a reopen', async () => {
    const dir = newDir();
    let t = open(dir);
    fill(t);
    const check = (tt: IndexTable) => {
      expect(tt.findSeries(T, labelsKey(ls({ __name__: 'up', job: 'api' })), () => false)).toBe(3);
      expect(tt.findSeries(T, labelsKey(ls({ __name__: 'up' })), () => false)).toBeUndefined();
      expect(tt.findSeries(OTHER, labelsKey(ls({ __name__: 'up', job: 'api' })), () => false)).toBeUndefined();
      expect(decodeLabelsKey(tt.labelsOf(T, 4)!, 0)).toEqual(ls({ __name__: 'errors_total', job: 'api', code: '500' }));
      expect(tt.labelsOf(T, 5)).toBeUndefined();
      expect(tt.hasDay(T, 11, 2)).toBe(true);
      expect(tt.hasDay(T, 11, 1)).toBe(false);
    };
    check(t);
    await t.flush(t.freeze(5));
    check(t);
    expect(t.maxSeriesId()).toBe(5);
    expect(Object.fromEntries(t.tenantSeries())).toEqual({ '0:0': 4, '7:1': 1 });
    await t.close();
    t = open(dir);
    check(t);
    expect(t.maxSeriesId()).toBe(5);
    await t.close();
  });

  it('returns the newest live series when a label set was deleted and written again', async () => {
    const t = open(newDir());
    const l = labelsKey(ls({ __name__: 'x' }));
    t.addSeries(T, '0:0', l, 1);
    await t.flush(t.freeze(1));
    t.addSeries(T, '0:0', l, 9);
    expect(t.findSeries(T, l, (id) => id === 1)).toBe(9);
    expect(t.findSeries(T, l, (id) => id === 1 || id === 9)).toBeUndefined();
    await t.flush(t.freeze(9));
    expect(t.findSeries(T, l, (id) => id === 1)).toBe(9);
    await t.close();
  });
});

describe('searchIds', () => {
  it('applies every matcher type with PromQL empty-value semantics', async () => {
    const t = open(newDir());
    fill(t);
    // Each case runs through index scans only, and with small candidate sets filtered by labels.
    const f = (sets: LabelMatcher[][], want: number[], opts: SearchOpts = {}) => {
      expect(search(t, sets, opts)).toEqual(want);
      expect(search(t, sets, { ...opts, byLabels: true })).toEqual(want);
    };
    // equality and intersections
    f([[m('__name__', '=', 'up')]], [1, 2, 3]);
    f([[m('__name__', '=', 'up'), m('job', '=', 'node')]], [1, 2]);
    // inequality keeps series without the label
    f([[m('__name__', '=', 'up'), m('instance', '!=', 'a')]], [2, 3]);
    // regexps are anchored
    f([[m('job', '=~', 'no')]], []);
    f([[m('job', '=~', 'no.*')]], [1, 2]);
    f([[m('job', '=~', 'node|api')]], [1, 2, 3, 4]);
    f([[m('job', '!~', 'node|x')]], [3, 4]);
    // {a=""} selects series without a; {a!=""} those with it; {a=~".*"} everything
    f([[m('instance', '=', '')]], [3, 4]);
    f([[m('instance', '!=', '')]], [1, 2]);
    f([[m('instance', '=~', '.*')]], [1, 2, 3, 4]);
    f([[m('instance', '=~', '.+')]], [1, 2]);
    f([[m('code', '=~', '5..|')]], [1, 2, 3, 4]);
    // literal heads narrow the scan to values with that prefix
    f([[m('job', '=~', 'n.*e')]], [1, 2]);
    f([[m('__name__', '=~', 'err.*')]], [4]);
    f([[m('__name__', '=~', 'u')]], []);
    f([[m('__name__', '=~', 'zz.*')]], []);
    // case-insensitive flag groups anywhere (RE2)
    f([[m('__name__', '=~', '(?i)UP')]], [1, 2, 3]);
    f([[m('job', '=~', '((?i)NO).*')]], [1, 2]);
    f([[m('__name__', '=', 'up'), m('job', '=~', 'n.*'), m('instance', '!~', 'a|x')]], [2]);
    f([[m('__name__', '=', 'up'), m('instance', '=~', '.*')]], [1, 2, 3]);
    f([[m('__name__', '=', 'up'), m('instance', '=~', '.+')]], [1, 2]);
    f([[m('job', '=', 'api'), m('code', '!=', '500')]], [3]);
    // sets are OR-ed; no sets = everything
    f([[m('code', '=', '500')], [m('instance', '=', 'a')]], [1, 4]);
    f([], [1, 2, 3, 4]);
    // days limit the search; deleted series are hidden
    f([[m('__name__', '=', 'up')]], [2], { minDay: 11, maxDay: 11 });
    f([[m('__name__', '=', 'up')]], [1, 2, 3], { minDay: 9, maxDay: 12 });
    f([[m('__name__', '=', 'up')]], [1, 3], { deleted: [2] });
    // another tenant sees only its own series
    expect(search(t, [[m('__name__', '=', 'up')]], { tenant: OTHER })).toEqual([5]);
    await t.close();
  });

  it('gives the same answers from parts after a flush and a merge', async () => {
    const t = open(newDir());
    fill(t);
    await t.flush(t.freeze(5));
    const extra = ls({ __name__: 'up', job: 'node', instance: 'c' });
    t.addSeries(T, '0:0', labelsKey(extra), 6);
    t.addDay(T, 10, extra, 6);
    expect(search(t, [[m('job', '=', 'node')]])).toEqual([1, 2, 6]);
    await t.flush(t.freeze(6));
    expect(t.stats().parts).toBe(2);
    await t.forceMerge(new AbortController().signal);
    expect(t.stats().parts).toBe(1);
    expect(search(t, [[m('job', '=', 'node')]])).toEqual([1, 2, 6]);
    expect(search(t, [[m('instance', '=', '')]])).toEqual([3, 4]);
    expect(t.maxSeriesId()).toBe(6);
    await t.close();
  });

  it('answers any matchers as matching every series\' labels, with many candidates, from parts and memory', async () => {
    // 1,200 series (more than the label-filter threshold), so regexps after an equality go
    // through the index (idsWhereWithin), in one merged part plus series still in memory.
    const t = open(newDir());
    const all: [number, Label[]][] = [];
    for (let id = 1; id <= 1200; id++) {
      const l = ls({ __name__: id % 3 === 0 ? 'a' : 'b', host: `h-${String(id % 97).padStart(3, '0')}`, dev: `eth${id % 4}`, ...(id % 5 === 0 ? {} : { k: String(id % 7) }) });
      all.push([id, l]);
      t.addSeries(T, '0:0', labelsKey(l), id);
      t.addDay(T, 10, l, id);
      if (id === 1100) {
        await t.flush(t.freeze(id));
        await t.forceMerge(new AbortController().signal);
      }
    }
    const matcher = fc.oneof(
      fc.constantFrom(m('__name__', '=', 'b'), m('__name__', '=', 'a'), m('dev', '=', 'eth1'), m('k', '=', '3')),
      fc.constantFrom(m('host', '=~', 'h-0[0-4].*'), m('dev', '=~', 'eth[12]'), m('host', '=~', 'h-01.|h-09.'), m('k', '=~', '1|2|'), m('dev', '=~', 'eth.*'),
        m('host', '=~', 'h-0[0-4].*|h-09[0-5]'), m('host', '=~', 'h-.*'), m('dev', '=~', '(eth|lo)[0-2]?')),
      fc.constantFrom(m('k', '!=', '1'), m('host', '!~', 'h-00.*'), m('k', '=', ''), m('dev', '!=', 'eth0')),
    );
    fc.assert(fc.property(fc.array(matcher, { minLength: 1, maxLength: 4 }), (set) => {
      const compiled = set.map(compileMatcher);
      const want = all.filter(([, l]) => labelsMatch(l, compiled)).map(([id]) => id);
      expect(search(t, [set])).toEqual(want);
    }), { numRuns: 300 });
    await t.close();
  });

  it('rejects a search over the series limit', async () => {
    const t = open(newDir());
    fill(t);
    const q = query(t);
    expect(() => searchIds(q, [[compileMatcher(m('__name__', '=~', '.+'))]], 3)).toThrow(/more than 3 series.*-search.maxUniqueTimeseries/);
    expect(searchIds(q, [[compileMatcher(m('__name__', '=~', '.+'))]], 4)).toHaveLength(4);
    q.view.release();
    await t.close();
  });

  it('rejects an invalid regexp with a clear error', () => {
    expect(() => compileMatcher(m('job', '=~', '(('))).toThrow(/invalid regexp "\(\(" for label "job"/);
  });
});

describe('label lookups', () => {
  it('lists names and values of matching, live series only', async () => {
    const t = open(newDir());
    fill(t);
    const q = query(t, [4]);
    expect(labelNamesOfDays(q, undefined, 0)).toEqual(['__name__', 'instance', 'job']);
    expect(labelValuesOfDays(q, 'job', undefined, 0)).toEqual(['api', 'node']);
    expect(labelValuesOfDays(q, '__name__', undefined, 0)).toEqual(['up']);
    expect(labelValuesOfDays(q, 'job', Float64Array.from([1]), 0)).toEqual(['node']);
    expect(labelNamesOfDays(q, Float64Array.from([3]), 0)).toEqual(['__name__', 'job']);
    expect(labelValuesOfDays(q, 'instance', undefined, 1)).toEqual(['a']);
    q.view.release();
    await t.close();
  });

  it('answers from the per-part lists as the walk does when nothing is deleted, over parts and memory', async () => {
    const t = open(newDir());
    fill(t);
    await t.flush(t.freeze(5));
    // A second part and the in-memory table add names and values, some escaped, some already known.
    const more: [number, Record<string, string>][] = [[6, { __name__: 'up', job: 'db', instance: 'a\x00\x01b' }], [7, { __name__: 'zz', 'é': 'ü' }]];
    for (const [id, labels] of more.slice(0, 1)) {
      t.addSeries(T, '0:0', labelsKey(ls(labels)), id);
      t.addDay(T, 10, ls(labels), id);
    }
    await t.flush(t.freeze(6));
    for (const [id, labels] of more.slice(1)) {
      t.addSeries(T, '0:0', labelsKey(ls(labels)), id);
      t.addDay(T, 10, ls(labels), id);
    }
    const walk = query(t, [], T, 10, 11);
    const lists: IndexQuery = { ...walk, noneDeleted: true };
    for (let i = 0; i < 2; i++) {
      expect(labelNamesOfDays(lists, undefined, 0)).toEqual(labelNamesOfDays(walk, undefined, 0));
      expect(labelNamesOfDays(lists, undefined, 0)).toEqual(['__name__', 'code', 'instance', 'job', 'é']);
      for (const name of ['__name__', 'job', 'instance', 'é', 'missing']) {
        expect(labelValuesOfDays(lists, name, undefined, 0)).toEqual(labelValuesOfDays(walk, name, undefined, 0));
      }
      expect(labelValuesOfDays(lists, 'instance', undefined, 0)).toEqual(['a', 'a\x00\x01b', 'b']);
      expect(labelValuesOfDays(lists, 'job', undefined, 2)).toEqual(['api', 'db']);
    }
    expect(search(t, [[m('job', '=~', 'node|db')]])).toEqual([1, 2, 6]);
    expect(search(t, [[m('__name__', '=', 'up')]], { maxDay: 11 })).toEqual([1, 2, 3, 6]);
    walk.view.release();
    await t.close();
  });

  it('computes tsdb status for one day', async () => {
    const t = open(newDir());
    fill(t);
    const q = query(t);
    const st = tsdbStatusOfDay(q, undefined, 2, 'job');
    expect(st.totalSeries).toBe(4);
    expect(st.totalLabelValuePairs).toBe(3 + 3 + 2 + 3);
    expect(st.seriesCountByMetricName).toEqual([{ name: 'up', count: 3 }, { name: 'errors_total', count: 1 }]);
    expect(st.seriesCountByLabelName).toEqual([{ name: '__name__', count: 4 }, { name: 'job', count: 4 }]);
    expect(st.seriesCountByFocusLabelValue).toEqual([{ name: 'api', count: 2 }, { name: 'node', count: 2 }]);
    expect(st.seriesCountByLabelValuePair).toEqual([{ name: '__name__=up', count: 3 }, { name: 'job=api', count: 2 }]);
    expect(st.labelValueCountByLabelName).toEqual([{ name: '__name__', count: 2 }, { name: 'instance', count: 2 }]);
    q.view.release();
    await t.close();
  });
});

describe('IndexTable crash leftovers and retention', () => {
  it('removes tmp dirs and parts missing from the manifest at open', async () => {
    const dir = newDir();
    let t = open(dir);
    fill(t);
    await t.flush(t.freeze(5));
    await t.close();
    mkdirSync(join(dir, 'tmp', 'half-written'), { recursive: true });
    mkdirSync(join(dir, '0123456789abcdef01234567'));
    t = open(dir);
    expect(readdirSync(dir).sort()).toEqual([...t.partNames(), 'parts.json'].sort());
    await t.close();
  });

  it('opens a directory without a manifest as empty, writing none until the first flush', async () => {
    const dir = newDir();
    let t = open(dir);
    expect(readdirSync(dir)).toEqual([]);
    await t.close();
    // A part directory with no manifest is not live: a crash before the first manifest write left it.
    mkdirSync(join(dir, '0123456789abcdef01234567'));
    t = open(dir);
    expect(readdirSync(dir)).toEqual([]);
    fill(t);
    await t.flush(t.freeze(5));
    const parts = t.partNames();
    expect(parts).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f !== 'tmp').sort()).toEqual([...parts, 'parts.json'].sort());
    await t.close();
    t = open(dir);
    expect(t.partNames()).toEqual(parts);
    expect(t.labelsOf(T, 1)).toBeDefined();
    await t.close();
  });

  it('drops per-day items older than the cutoff when merging', async () => {
    const dir = newDir();
    const t = open(dir, 11);
    fill(t);
    await t.flush(t.freeze(5));
    const l = ls({ __name__: 'late' });
    t.addSeries(T, '0:0', labelsKey(l), 6);
    t.addDay(T, 12, l, 6);
    await t.flush(t.freeze(6));
    await t.forceMerge(new AbortController().signal);
    expect(search(t, [], { minDay: 10, maxDay: 12 })).toEqual([2, 6]);
    // global items survive: the series is still known by its labels
    expect(t.findSeries(T, labelsKey(ls({ __name__: 'up', job: 'api' })), () => false)).toBe(3);
    await t.close();
  });
});
