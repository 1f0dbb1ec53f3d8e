// A reusable contract test suite for storageapi implementations (ARCHITECTURE.md §4: one suite
// runs against the in-process storage and the cluster's network client). Call
// describeStorageApiContract from a *.test.ts file with a factory that returns a fresh, empty
// implementation each time.

import { afterEach, describe, expect, it } from 'vitest';
import type { Inserter, Label, LabelMatcher, MetricRow, SearchQuery, SeriesSamples, StorageApi, Tenant, TenantLister } from './api.ts';
import { DEFAULT_TENANT } from './api.ts';
import { LimitExceededError } from './errors.ts';
import { STALE_NAN, isStaleNaN } from './stale.ts';

/** ContractSubject is one fresh implementation under test. */
export interface ContractSubject {
  readonly api: StorageApi & Inserter & TenantLister;
  /** maxLabelsPerTimeseries the implementation enforces on writes. */
  readonly maxLabelsPerTimeseries: number;
  /** close releases the implementation (and removes its data). */
  close(): Promise<void>;
}

const MIN = 60_000;

const ls = (o: Record<string, string>): Label[] =>
  Object.keys(o)
    .sort()
    .map((name) => ({ name, value: o[name]! }));

const mt = (name: string, type: LabelMatcher['type'], value: string): LabelMatcher => ({ name, type, value });

const never = () => new AbortController().signal;

function keyOf(labels: readonly Label[]): string {
  return '{' + labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(',') + '}';
}

async function collect(it: AsyncIterable<SeriesSamples>): Promise<Record<string, [number, number][]>> {
  const out: Record<string, [number, number][]> = {};
  for await (const s of it) out[keyOf(s.labels)] = Array.from(s.timestamps, (t, i) => [t, s.values[i]!]);
  return out;
}

/**
 * describeStorageApiContract defines the contract tests. Timestamps are taken from the wall clock
 * (minutes before now), so any implementation with a retention of at least a day accepts them.
 */
export function describeStorageApiContract(name: string, factory: () => Promise<ContractSubject>): void {
  describe(`storageapi contract: ${name}`, () => {
    let subject: ContractSubject | undefined;
    // The fixture spans a few minutes; anchoring it at least 10 minutes after 00:00 UTC keeps it
    // inside one day, so per-day results (tsdbStatus) are the same whenever the suite runs.
    const wall = Math.floor(Date.now() / MIN) * MIN;
    const now = wall % 86_400_000 < 10 * MIN ? wall - 10 * MIN : wall;
    const t = (minutesAgo: number) => now - minutesAgo * MIN;
    const range = { minTimestamp: t(60), maxTimestamp: now };
    const q = (sets: LabelMatcher[][], tenant: Tenant = DEFAULT_TENANT, maxSeries = 0): SearchQuery => ({ tenant, matcherSets: sets, timeRange: range, maxSeries });
    const open = async () => {
      subject = await factory();
      return subject.api;
    };
    afterEach(async () => {
      await subject?.close();
      subject = undefined;
    });

    const fixture = async (api: StorageApi & Inserter & TenantLister) => {
      const rows: MetricRow[] = [
        { labels: ls({ __name__: 'up', job: 'node', instance: 'a' }), timestamp: t(3), value: 1 },
        { labels: ls({ __name__: 'up', job: 'node', instance: 'a' }), timestamp: t(2), value: 1 },
        { labels: ls({ __name__: 'up', job: 'node', instance: 'b' }), timestamp: t(2), value: 0 },
        { labels: ls({ __name__: 'up', job: 'api' }), timestamp: t(1), value: 1 },
        { labels: ls({ __name__: 'http_requests_total', job: 'api', code: '500' }), timestamp: t(1), value: 12.5 },
      ];
      await api.addRows(DEFAULT_TENANT, rows);
    };

    it('returns written samples per series, sorted, with duplicates resolved to one value', async () => {
      const api = await open();
      await fixture(api);
      await api.addRows(DEFAULT_TENANT, [
        { labels: ls({ __name__: 'up', job: 'node', instance: 'a' }), timestamp: t(5), value: 1 },
        { labels: ls({ instance: 'a', __name__: 'up', job: 'node' }), timestamp: t(2), value: 1 },
      ]);
      const got = await collect(api.searchSeries(q([[mt('instance', '=', 'a')]]), never()));
      expect(got).toEqual({ '{__name__="up",instance="a",job="node"}': [[t(5), 1], [t(3), 1], [t(2), 1]] });
    });

    it('keeps staleness markers bit-exact', async () => {
      const api = await open();
      const row = { labels: ls({ __name__: 'stale' }), timestamp: t(1), value: STALE_NAN };
      await api.addRows(DEFAULT_TENANT, [row]);
      for await (const s of api.searchSeries(q([[mt('__name__', '=', 'stale')]]), never())) expect(isStaleNaN(s.values[0]!)).toBe(true);
    });

    it('applies every matcher type, ORs matcher sets and treats a missing label as ""', async () => {
      const api = await open();
      await fixture(api);
      const f = async (sets: LabelMatcher[][], want: string[]) => {
        const got = await api.searchLabelSets(q(sets), 0, never());
        expect(got.map(keyOf).sort()).toEqual(want.sort());
      };
      const A = '{__name__="up",instance="a",job="node"}';
      const B = '{__name__="up",instance="b",job="node"}';
      const C = '{__name__="up",job="api"}';
      const H = '{__name__="http_requests_total",code="500",job="api"}';
      await f([[mt('__name__', '=', 'up')]], [A, B, C]);
      await f([[mt('__name__', '=', 'up'), mt('instance', '!=', 'a')]], [B, C]);
      await f([[mt('job', '=~', 'nod.')]], [A, B]);
      await f([[mt('job', '=~', 'no')]], []);
      await f([[mt('job', '!~', 'node'), mt('__name__', '=~', '.+')]], [C, H]);
      await f([[mt('instance', '=', '')]], [C, H]);
      await f([[mt('code', '=', '500')], [mt('instance', '=', 'b')]], [H, B]);
    });

    it('selects samples in an inclusive time range', async () => {
      const api = await open();
      await fixture(api);
      const got = await collect(api.searchSeries({ ...q([[mt('instance', '=', 'a')]]), timeRange: { minTimestamp: t(2), maxTimestamp: t(2) } }, never()));
      expect(Object.values(got)).toEqual([[[t(2), 1]]]);
      const none = await collect(api.searchSeries({ ...q([[mt('instance', '=', 'a')]]), timeRange: { minTimestamp: t(1), maxTimestamp: now } }, never()));
      expect(none).toEqual({});
    });

    it('keeps tenants apart', async () => {
      const api = await open();
      const other: Tenant = { accountID: 42, projectID: 7 };
      await fixture(api);
      await api.addRows(other, [{ labels: ls({ __name__: 'up', job: 'secret' }), timestamp: t(1), value: 5 }]);
      expect(await collect(api.searchSeries(q([[mt('__name__', '=', 'up')]], other), never()))).toEqual({ '{__name__="up",job="secret"}': [[t(1), 5]] });
      expect(await api.labelValues(q([]), 'job', 0, never())).toEqual(['api', 'node']);
      expect(await api.seriesCount(other, never())).toBe(1);
      expect(await api.seriesCount(DEFAULT_TENANT, never())).toBe(4);
    });

    it('lists the tenants with live series in a time range, sorted', async () => {
      const api = await open();
      await fixture(api);
      await api.addRows({ accountID: 42, projectID: 7 }, [{ labels: ls({ __name__: 'up' }), timestamp: t(1), value: 1 }]);
      await api.addRows({ accountID: 3, projectID: 0 }, [{ labels: ls({ __name__: 'up' }), timestamp: t(1), value: 1 }]);
      await api.addRows({ accountID: 3, projectID: 1 }, [{ labels: ls({ __name__: 'up' }), timestamp: t(1), value: 1 }]);
      const all = [{ accountID: 0, projectID: 0 }, { accountID: 3, projectID: 0 }, { accountID: 3, projectID: 1 }, { accountID: 42, projectID: 7 }];
      expect(await api.listTenants(range, never())).toEqual(all);
      expect(await api.listTenants({ minTimestamp: now - 40 * 86_400_000, maxTimestamp: now - 30 * 86_400_000 }, never())).toEqual([]);
      expect(await api.deleteSeries(q([[mt('__name__', '=', 'up')]], { accountID: 3, projectID: 0 }), never())).toBe(1);
      expect(await api.listTenants(range, never())).toEqual([all[0], all[2], all[3]]);
    });

    it('lists label names and values, all or of matching series, with limits', async () => {
      const api = await open();
      await fixture(api);
      expect(await api.labelNames(q([]), 0, never())).toEqual(['__name__', 'code', 'instance', 'job']);
      expect(await api.labelNames(q([[mt('job', '=', 'node')]]), 0, never())).toEqual(['__name__', 'instance', 'job']);
      expect(await api.labelNames(q([]), 2, never())).toEqual(['__name__', 'code']);
      expect(await api.labelValues(q([]), '__name__', 0, never())).toEqual(['http_requests_total', 'up']);
      expect(await api.labelValues(q([[mt('__name__', '=', 'up')]]), 'job', 0, never())).toEqual(['api', 'node']);
      expect(await api.labelValues(q([]), 'nope', 0, never())).toEqual([]);
      expect(await api.searchLabelSets(q([[mt('__name__', '=', 'up')]]), 2, never())).toHaveLength(2);
    });

    it('rejects a search matching more series than maxSeries with a LimitExceededError', async () => {
      const api = await open();
      await fixture(api);
      const err = await api.searchLabelSets(q([[mt('__name__', '=~', '.+')]], DEFAULT_TENANT, 3), 0, never()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitExceededError);
      expect((err as LimitExceededError).flag).toBe('search.maxUniqueTimeseries');
      expect(await api.searchLabelSets(q([[mt('__name__', '=~', '.+')]], DEFAULT_TENANT, 4), 0, never())).toHaveLength(4);
    });

    it('deletes series at once and starts a fresh series when the labels come back', async () => {
      const api = await open();
      await fixture(api);
      expect(await api.deleteSeries(q([[mt('job', '=', 'node')]]), never())).toBe(2);
      expect(await api.searchLabelSets(q([[mt('job', '=', 'node')]]), 0, never())).toEqual([]);
      expect(await api.seriesCount(DEFAULT_TENANT, never())).toBe(2);
      expect(await api.deleteSeries(q([[mt('job', '=', 'node')]]), never())).toBe(0);
      await api.addRows(DEFAULT_TENANT, [{ labels: ls({ __name__: 'up', job: 'node', instance: 'a' }), timestamp: t(1), value: 7 }]);
      expect(await collect(api.searchSeries(q([[mt('job', '=', 'node')]]), never()))).toEqual({ '{__name__="up",instance="a",job="node"}': [[t(1), 7]] });
      expect(await api.seriesCount(DEFAULT_TENANT, never())).toBe(3);
    });

    it('stores the valid rows of a call and rejects the ones over a limit with a LimitExceededError', async () => {
      const api = await open();
      const many: Record<string, string> = { __name__: 'wide' };
      for (let i = 0; i < subject!.maxLabelsPerTimeseries; i++) many[`l${i}`] = 'v';
      const err = await api
        .addRows(DEFAULT_TENANT, [
          { labels: ls({ __name__: 'ok' }), timestamp: t(1), value: 1 },
          { labels: ls(many), timestamp: t(1), value: 1 },
        ])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitExceededError);
      expect((err as LimitExceededError).flag).toBe('maxLabelsPerTimeseries');
      expect(await api.labelValues(q([]), '__name__', 0, never())).toEqual(['ok']);
    });

    it('reports cardinality for today', async () => {
      const api = await open();
      await fixture(api);
      const st = await api.tsdbStatus({ tenant: DEFAULT_TENANT, date: now, matcherSets: [], topN: 5, focusLabel: 'job' }, never());
      expect(st.totalSeries).toBe(4);
      expect(st.seriesCountByMetricName).toEqual([{ name: 'up', count: 3 }, { name: 'http_requests_total', count: 1 }]);
      expect(st.seriesCountByFocusLabelValue).toEqual([{ name: 'node', count: 2 }, { name: 'api', count: 2 }].sort((a, b) => a.name.localeCompare(b.name)));
      expect(st.totalLabelValuePairs).toBe(3 + 3 + 2 + 3);
    });

    it('rejects an aborted search with the signal reason', async () => {
      const api = await open();
      await fixture(api);
      const ac = new AbortController();
      const reason = new Error('client went away');
      ac.abort(reason);
      await expect(api.labelNames(q([]), 0, ac.signal)).rejects.toBe(reason);
      await expect(api.listTenants(range, ac.signal)).rejects.toBe(reason);
      await expect(collect(api.searchSeries(q([[mt('__name__', '=', 'up')]]), ac.signal))).rejects.toBe(reason);
    });

    it('hands out results the caller owns', async () => {
      const api = await open();
      await fixture(api);
      const first = await api.searchLabelSets(q([[mt('__name__', '=', 'up')]]), 0, never());
      first.length = 0;
      const names = await api.labelNames(q([]), 0, never());
      names.push('junk');
      expect(await api.searchLabelSets(q([[mt('__name__', '=', 'up')]]), 0, never())).toHaveLength(3);
      expect(await api.labelNames(q([]), 0, never())).not.toContain('junk');
    });
  });
}
