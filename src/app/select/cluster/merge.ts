import { compareLabels, labelsKey } from '../../../lib/query/index.ts';
import { formatTenant, type Labels, type NameCount, normalizeSamples, type SeriesSamples, type Tenant, type TsdbStatus } from '../../../lib/storageapi/index.ts';

// Merging the answers of several storage nodes into one, as if one storage had answered. A series
// can live on several nodes: its replicas, and the nodes its rows were rerouted to while one of its
// own was out of rotation.

/** SeriesMerger collects series from several nodes and merges those with the same labels. */
export class SeriesMerger {
  readonly #byKey = new Map<string, SeriesSamples[]>();

  add(s: SeriesSamples): void {
    const key = labelsKey(s.labels);
    const parts = this.#byKey.get(key);
    if (parts === undefined) this.#byKey.set(key, [s]);
    else parts.push(s);
  }

  get size(): number {
    return this.#byKey.size;
  }

  /**
   * merged yields one series per label set: samples of all its copies in timestamp order, one
   * value per timestamp (storage's duplicate rule, so replicas collapse into one sample), then
   * deduplicated by dedupMs (-dedup.minScrapeInterval; 0 = off).
   */
  *merged(dedupMs: number): Generator<SeriesSamples> {
    for (const parts of this.#byKey.values()) {
      if (parts.length === 1 && dedupMs <= 0) {
        yield parts[0]!;
        continue;
      }
      yield mergeSeries(parts, dedupMs);
    }
  }
}

/** mergeSeries merges copies of one series (same labels) into one; see SeriesMerger.merged. */
export function mergeSeries(parts: readonly SeriesSamples[], dedupMs: number): SeriesSamples {
  let total = 0;
  for (const p of parts) total += p.timestamps.length;
  const ts = new Float64Array(total);
  const vals = new Float64Array(total);
  let at = 0;
  for (const p of parts) {
    ts.set(p.timestamps, at);
    vals.set(p.values, at);
    at += p.timestamps.length;
  }
  const n = normalizeSamples(ts, vals, total, dedupMs);
  return { labels: parts[0]!.labels, timestamps: ts.subarray(0, n), values: vals.subarray(0, n) };
}

/** unionLabelSets merges label-set lists: distinct sets, in Prometheus' label order, at most limit (0 = all). */
export function unionLabelSets(lists: readonly (readonly Labels[])[], limit: number): Labels[] {
  const byKey = new Map<string, Labels>();
  for (const list of lists) for (const ls of list) byKey.set(labelsKey(ls), ls);
  const out = [...byKey.values()].sort(compareLabels);
  return limit > 0 ? out.slice(0, limit) : out;
}

/** unionStrings merges sorted string lists (label names or values): distinct, sorted, at most limit (0 = all). */
export function unionStrings(lists: readonly (readonly string[])[], limit: number): string[] {
  const out = [...new Set(lists.flat())].sort();
  return limit > 0 ? out.slice(0, limit) : out;
}

/** unionTenants merges tenant lists: distinct, ordered by accountID then projectID. */
export function unionTenants(lists: readonly (readonly Tenant[])[]): Tenant[] {
  const byKey = new Map<string, Tenant>();
  for (const list of lists) for (const t of list) byKey.set(formatTenant(t), { accountID: t.accountID, projectID: t.projectID });
  return [...byKey.values()].sort((a, b) => a.accountID - b.accountID || a.projectID - b.projectID);
}

/**
 * mergeTsdbStatus adds up the nodes' cardinality statistics and keeps the topN largest entries
 * of each list. With replication a series is counted once per node holding it, as each node
 * counts its own (DECISIONS.md "Cluster statistics").
 */
export function mergeTsdbStatus(parts: readonly TsdbStatus[], topN: number): TsdbStatus {
  const sum = (pick: (s: TsdbStatus) => readonly NameCount[]): NameCount[] => {
    const m = new Map<string, number>();
    for (const p of parts) for (const e of pick(p)) m.set(e.name, (m.get(e.name) ?? 0) + e.count);
    const out = [...m].map(([name, count]) => ({ name, count }));
    out.sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return out.slice(0, topN);
  };
  return {
    totalSeries: parts.reduce((n, p) => n + p.totalSeries, 0),
    totalLabelValuePairs: parts.reduce((n, p) => n + p.totalLabelValuePairs, 0),
    seriesCountByMetricName: sum((s) => s.seriesCountByMetricName),
    seriesCountByLabelName: sum((s) => s.seriesCountByLabelName),
    seriesCountByFocusLabelValue: sum((s) => s.seriesCountByFocusLabelValue),
    seriesCountByLabelValuePair: sum((s) => s.seriesCountByLabelValuePair),
    labelValueCountByLabelName: sum((s) => s.labelValueCountByLabelName),
  };
}
