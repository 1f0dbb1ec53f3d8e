import type { NameCount, TsdbStatus } from '../../storageapi/api.ts';
import { hasId } from './id-sets.ts';
import type { IndexQuery } from './index-search.ts';
import { KIND_DAY_LABEL, KIND_DAY_SERIES, dayPrefix, decodeText, encodeText, readIdKey } from './keys.ts';

/**
 * LabelFilter restricts label lookups to some series: `ids` (sorted) when matchers were given,
 * undefined for all series; deleted series never count.
 */
export type LabelFilter = Float64Array | undefined;

function qualifies(q: IndexQuery, filter: LabelFilter, id: number): boolean {
  return (filter === undefined || hasId(filter, id)) && !q.isDeleted(id);
}

/** skipPast returns the smallest key after every item starting with textPrefix (ends in 0x00). */
function skipPast(textPrefix: string): string {
  return textPrefix.slice(0, -1) + '\x01';
}

/**
 * anyQualifying scans the items under prefix (whose suffix is a series ID) and reports whether
 * one belongs to a qualifying series. Without a filter and without deletions the first item
 * answers.
 */
function anyQualifying(q: IndexQuery, filter: LabelFilter, prefixLen: number, items: { current: string | undefined; next(): void }, prefix: string, idAtEnd: boolean): boolean {
  for (; items.current !== undefined && items.current.startsWith(prefix); items.next()) {
    const item = items.current;
    const id = readIdKey(item, idAtEnd ? item.length - 8 : prefixLen);
    if (qualifies(q, filter, id)) return true;
  }
  return false;
}

/**
 * everyTextAfter adds to out every text following prefix in the index: what the label walks
 * below find when every series qualifies (no filter, no deleted series), from lists the view
 * keeps per part instead of one seek per name or value.
 */
function everyTextAfter(q: IndexQuery, prefix: string, out: Set<string>): void {
  for (const list of q.view.distinctTexts(prefix)) for (const t of list) out.add(t);
}

/** labelNamesOfDays returns the sorted names of labels of qualifying series over the day range. */
export function labelNamesOfDays(q: IndexQuery, filter: LabelFilter, limit: number): string[] {
  const names = new Set<string>();
  for (let day = q.minDay; day <= q.maxDay; day++) {
    q.signal.throwIfAborted();
    const prefix = dayPrefix(KIND_DAY_LABEL, q.tenant, day);
    if (filter === undefined && q.noneDeleted === true) {
      everyTextAfter(q, prefix, names);
      continue;
    }
    const c = q.view.cursor();
    c.seek(prefix);
    while (c.current !== undefined && c.current.startsWith(prefix)) {
      const [name, end] = decodeText(c.current, prefix.length);
      const namePrefix = c.current.slice(0, end);
      if (!names.has(name) && anyQualifying(q, filter, 0, c, namePrefix, true)) names.add(name);
      c.seek(skipPast(namePrefix));
    }
  }
  return limited([...names].sort(), limit);
}

/** labelValuesOfDays returns the sorted values of one label over qualifying series. */
export function labelValuesOfDays(q: IndexQuery, name: string, filter: LabelFilter, limit: number): string[] {
  const values = new Set<string>();
  for (let day = q.minDay; day <= q.maxDay; day++) {
    q.signal.throwIfAborted();
    const prefix = dayPrefix(KIND_DAY_LABEL, q.tenant, day) + encodeText(name);
    if (filter === undefined && q.noneDeleted === true) {
      everyTextAfter(q, prefix, values);
      continue;
    }
    const c = q.view.cursor();
    c.seek(prefix);
    while (c.current !== undefined && c.current.startsWith(prefix)) {
      const [value, end] = decodeText(c.current, prefix.length);
      const valuePrefix = c.current.slice(0, end);
      if (!values.has(value) && anyQualifying(q, filter, valuePrefix.length, c, valuePrefix, false)) values.add(value);
      c.seek(skipPast(valuePrefix));
    }
  }
  return limited([...values].sort(), limit);
}

function limited(a: string[], limit: number): string[] {
  return limit > 0 && a.length > limit ? a.slice(0, limit) : a;
}

/** TopN keeps the n largest counts (ties by name ascending). */
class TopN {
  readonly #n: number;
  readonly #items: NameCount[] = [];

  constructor(n: number) {
    this.#n = n;
  }

  push(name: string, count: number): void {
    const a = this.#items;
    if (a.length >= this.#n) {
      const last = a[a.length - 1]!;
      if (count < last.count || (count === last.count && name > last.name)) return;
    }
    let i = a.length;
    while (i > 0 && (a[i - 1]!.count < count || (a[i - 1]!.count === count && a[i - 1]!.name > name))) i--;
    a.splice(i, 0, { name, count });
    if (a.length > this.#n) a.pop();
  }

  list(): NameCount[] {
    return [...this.#items];
  }
}

/**
 * tsdbStatusOfDay computes cardinality statistics of qualifying series on q.minDay (the range
 * must be one day), as Prometheus' /api/v1/status/tsdb plus VictoriaMetrics' totals:
 * totalLabelValuePairs sums, over series, the number of their labels (the __name__ included).
 */
export function tsdbStatusOfDay(q: IndexQuery, filter: LabelFilter, topN: number, focusLabel: string): TsdbStatus {
  const day = q.minDay;
  const byMetric = new TopN(topN);
  const byLabel = new TopN(topN);
  const byFocus = new TopN(topN);
  const byPair = new TopN(topN);
  const valueCounts = new TopN(topN);
  let totalPairs = 0;
  const prefix = dayPrefix(KIND_DAY_LABEL, q.tenant, day);
  const c = q.view.cursor();
  c.seek(prefix);
  let steps = 0;
  while (c.current !== undefined && c.current.startsWith(prefix)) {
    const [name, nameEnd] = decodeText(c.current, prefix.length);
    const namePrefix = c.current.slice(0, nameEnd);
    let seriesWithName = 0;
    let distinctValues = 0;
    while (c.current !== undefined && c.current.startsWith(namePrefix)) {
      const [value, valueEnd] = decodeText(c.current, nameEnd);
      const valuePrefix = c.current.slice(0, valueEnd);
      let n = 0;
      for (; c.current !== undefined && c.current.startsWith(valuePrefix); c.next()) {
        if (qualifies(q, filter, readIdKey(c.current, valueEnd))) n++;
        if (++steps % 4096 === 0) q.signal.throwIfAborted();
      }
      if (n === 0) continue;
      seriesWithName += n;
      distinctValues++;
      totalPairs += n;
      byPair.push(`${name}=${value}`, n);
      if (name === '__name__') byMetric.push(value, n);
      if (name === focusLabel) byFocus.push(value, n);
    }
    if (seriesWithName > 0) {
      byLabel.push(name, seriesWithName);
      valueCounts.push(name, distinctValues);
    }
  }
  return {
    totalSeries: countSeriesOfDay(q, filter, day),
    totalLabelValuePairs: totalPairs,
    seriesCountByMetricName: byMetric.list(),
    seriesCountByLabelName: byLabel.list(),
    seriesCountByFocusLabelValue: byFocus.list(),
    seriesCountByLabelValuePair: byPair.list(),
    labelValueCountByLabelName: valueCounts.list(),
  };
}

function countSeriesOfDay(q: IndexQuery, filter: LabelFilter, day: number): number {
  const prefix = dayPrefix(KIND_DAY_SERIES, q.tenant, day);
  const c = q.view.cursor();
  let n = 0;
  for (c.seek(prefix); c.current !== undefined && c.current.startsWith(prefix); c.next()) {
    if (qualifies(q, filter, readIdKey(c.current, prefix.length))) n++;
  }
  return n;
}
