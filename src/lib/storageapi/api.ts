// Package storageapi is the contract between the query side (src/lib/query, src/app/select)
// and the storage side (src/lib/storage in-process, or a cluster storage node over the network).
// One contract test suite (contract-suite.ts) runs against every implementation.
//
// Units and bounds, everywhere in this file:
// - timestamps are integer milliseconds since the Unix epoch, held in a JS number (exact up to 2^53);
// - a TimeRange is inclusive at both ends;
// - label sets are sorted by name and include the metric name as label "__name__" when it exists.
//
// Concurrency: every method may be called concurrently from many requests; implementations
// serialise what they need to. Results are owned by the caller (implementations never mutate
// arrays they have returned).

/** Tenant identifies a cluster tenant. Single-node storage uses {accountID: 0, projectID: 0}. */
export interface Tenant {
  readonly accountID: number;
  readonly projectID: number;
}

export const DEFAULT_TENANT: Tenant = Object.freeze({ accountID: 0, projectID: 0 });

/** Label is one name=value pair of a series. */
export interface Label {
  readonly name: string;
  readonly value: string;
}

/** Labels is a label set sorted by name, without duplicate names, without empty values. */
export type Labels = readonly Label[];

/** MatchType is a label matcher operator, spelled as in PromQL. */
export type MatchType = '=' | '!=' | '=~' | '!~';

/**
 * LabelMatcher selects series by one label. Regexps are fully anchored (as in PromQL).
 * A matcher on a label the series lacks treats the value as "".
 */
export interface LabelMatcher {
  readonly name: string;
  readonly type: MatchType;
  readonly value: string;
}

/** TimeRange is inclusive at both ends, in milliseconds. */
export interface TimeRange {
  readonly minTimestamp: number;
  readonly maxTimestamp: number;
}

/**
 * SearchQuery selects the series matching ANY of the matcher sets (each set is AND-ed), that
 * have at least one sample (or, for index lookups, an index entry) inside timeRange.
 */
export interface SearchQuery {
  readonly tenant: Tenant;
  readonly matcherSets: readonly (readonly LabelMatcher[])[];
  readonly timeRange: TimeRange;
  /**
   * maxSeries caps the number of distinct series the search may touch; exceeding it rejects
   * the search with a LimitExceededError naming the limit (the select side maps that to 422).
   * 0 means no cap.
   */
  readonly maxSeries: number;
  /**
   * borrow: the caller reads each series before it asks for the next one and keeps no reference
   * to its timestamps and values, so a search may hand out views of buffers it reuses for the
   * next series instead of a fresh copy per series (labels stay owned). A searcher may ignore it.
   */
  readonly borrow?: boolean;
}

/**
 * SeriesSamples is the raw data of one series inside the searched range: timestamps ascending,
 * one value per timestamp, duplicates already resolved (one value per timestamp, chosen
 * deterministically), deduplication by -dedup.minScrapeInterval already applied.
 * Prometheus staleness markers are kept bit-exact (see stale.ts).
 */
export interface SeriesSamples {
  readonly labels: Labels;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  /**
   * noNaN: true when the searcher knows that no value is NaN (so none is a staleness marker),
   * e.g. from how the values were stored; absent or false: unknown.
   */
  readonly noNaN?: boolean;
}

/** TsdbStatusQuery parameters of /api/v1/status/tsdb (DECISIONS.md). */
export interface TsdbStatusQuery {
  readonly tenant: Tenant;
  /** The UTC day to report on, as milliseconds of its 00:00; undefined = today. */
  readonly date: number;
  readonly matcherSets: readonly (readonly LabelMatcher[])[];
  readonly topN: number;
  readonly focusLabel: string;
}

export interface NameCount {
  readonly name: string;
  readonly count: number;
}

export interface TsdbStatus {
  readonly totalSeries: number;
  readonly totalLabelValuePairs: number;
  readonly seriesCountByMetricName: readonly NameCount[];
  readonly seriesCountByLabelName: readonly NameCount[];
  readonly seriesCountByFocusLabelValue: readonly NameCount[];
  readonly seriesCountByLabelValuePair: readonly NameCount[];
  readonly labelValueCountByLabelName: readonly NameCount[];
}

/**
 * Searcher is the read side of storage. Every method takes an AbortSignal; an aborted search
 * rejects with the signal's reason and stops touching storage promptly.
 */
export interface Searcher {
  /**
   * searchSeries streams the samples of every matching series, one series at a time, in no
   * particular order. Memory stays bounded by one series' data in the range plus the series
   * being decoded; callers that need all series at once collect them.
   */
  searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples>;

  /**
   * searchSeriesBatches, where a searcher has it, is searchSeries in batches for a caller that
   * reads series one at a time: a batch is read synchronously as it is iterated (a borrowing
   * query's views stay valid until the next series), the event loop gets its turns between
   * batches, so the caller awaits once per batch instead of once per series. A batch is read
   * (or left) before the next one is asked for.
   */
  searchSeriesBatches?(q: SearchQuery, signal: AbortSignal): AsyncIterable<Iterable<SeriesSamples>>;

  /** searchLabelSets returns the label sets of matching series (the /api/v1/series body). `limit` 0 = none. */
  searchLabelSets(q: SearchQuery, limit: number, signal: AbortSignal): Promise<Labels[]>;

  /** labelNames returns the sorted distinct label names of matching series (all series when matcherSets is empty). */
  labelNames(q: SearchQuery, limit: number, signal: AbortSignal): Promise<string[]>;

  /** labelValues returns the sorted distinct values of one label over matching series (all series when matcherSets is empty). */
  labelValues(q: SearchQuery, labelName: string, limit: number, signal: AbortSignal): Promise<string[]>;

  /** seriesCount returns the number of series of the tenant that are not deleted. */
  seriesCount(tenant: Tenant, signal: AbortSignal): Promise<number>;

  /** tsdbStatus returns cardinality statistics for one day. */
  tsdbStatus(q: TsdbStatusQuery, signal: AbortSignal): Promise<TsdbStatus>;
}

/** Deleter is the admin side used by /api/v1/admin/tsdb/delete_series. */
export interface Deleter {
  /**
   * deleteSeries marks every series matching q deleted (time range ignored: whole series) and
   * returns how many were marked. Deleted series disappear from every search at once; merges drop
   * their samples later. A series written again after deletion starts fresh.
   */
  deleteSeries(q: SearchQuery, signal: AbortSignal): Promise<number>;
}

/** MetricRow is one sample to write: labels (including __name__), timestamp in ms, value. */
export interface MetricRow {
  readonly labels: Labels;
  readonly timestamp: number;
  readonly value: number;
  /**
   * rawKey, when set, identifies this row's label set exactly as the sender spelled it (for
   * example the text before the value in a Prometheus text line, followed by any extra labels the
   * insert path added). Two different label sets never share a rawKey; the same label set may have
   * several. Storage may cache rawKey → series to skip sorting and canonicalising labels on the
   * hot path. Leave it undefined when unsure.
   */
  readonly rawKey?: string;
}

/** Inserter is the write side. */
export interface Inserter {
  /**
   * addRows durably accepts rows: when the promise resolves, the rows are in the write-ahead log
   * and survive a SIGKILL of the process. Rows that break a storage limit are rejected by throwing
   * a LimitExceededError after the valid rows of the same call were accepted.
   */
  addRows(tenant: Tenant, rows: readonly MetricRow[]): Promise<void>;
}

/** StorageApi is everything a query node needs from storage. */
export interface StorageApi extends Searcher, Deleter {}

/**
 * TenantLister tells which tenants a storage holds data for: the cluster select node asks every
 * storage node for it to serve multi-tenant reads and the tenant list.
 */
export interface TenantLister {
  /**
   * listTenants returns the tenants having at least one live (not deleted) series with a sample
   * in range, sorted by accountID, then projectID. Implementations with a per-day index may also
   * list a tenant whose samples are only on the same UTC days as range (day granularity, as the
   * label APIs).
   */
  listTenants(range: TimeRange, signal: AbortSignal): Promise<Tenant[]>;
}
