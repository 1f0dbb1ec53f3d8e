import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Label, LabelMatcher, MetricRow, SearchQuery, SeriesSamples, Tenant } from '../../storageapi/api.ts';
import { DEFAULT_TENANT } from '../../storageapi/api.ts';
import type { StorageOptions } from '../options.ts';
import { openStorage, type Storage } from '../storage.ts';

/** TempDirs hands out temporary directories and removes them in cleanup(). */
export class TempDirs {
  readonly #dirs: string[] = [];

  make(prefix = 'strata-storage-'): string {
    const d = mkdtempSync(join(tmpdir(), prefix));
    this.#dirs.push(d);
    return d;
  }

  cleanup(): void {
    for (const d of this.#dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }
}

/** T0 is a fixed "now" for tests: 2024-03-15 12:00 UTC. */
export const T0 = Date.UTC(2024, 2, 15, 12);

/** FakeClock is an injectable clock. */
export class FakeClock {
  t: number;

  constructor(t = T0) {
    this.t = t;
  }

  now = (): number => this.t;
}

/**
 * openTest opens a storage with test-friendly options: no timers firing during a test, flushes
 * and merges on the test's thread (a worker thread costs ~200 ms to start; the worker path has
 * its own tests).
 */
export function openTest(dataPath: string, clock: FakeClock, over: Partial<StorageOptions> = {}): Promise<Storage> {
  return openStorage({
    dataPath,
    now: clock.now,
    flushIntervalMs: 3_600_000,
    maintenanceIntervalMs: 3_600_000,
    fsyncIntervalMs: -1,
    backgroundMerges: false,
    backgroundThreads: 0,
    ...over,
  });
}

/** labels builds a sorted label set from an object. */
export function labels(o: Record<string, string>): Label[] {
  return Object.keys(o)
    .sort()
    .map((name) => ({ name, value: o[name]! }));
}

/** row builds a MetricRow. */
export function row(l: Record<string, string>, timestamp: number, value: number, rawKey?: string): MetricRow {
  return rawKey === undefined ? { labels: labels(l), timestamp, value } : { labels: labels(l), timestamp, value, rawKey };
}

/** m builds a matcher. */
export function m(name: string, type: LabelMatcher['type'], value: string): LabelMatcher {
  return { name, type, value };
}

/** query builds a SearchQuery. */
export function query(sets: LabelMatcher[][], minTimestamp: number, maxTimestamp: number, tenant: Tenant = DEFAULT_TENANT, maxSeries = 0): SearchQuery {
  return { tenant, matcherSets: sets, timeRange: { minTimestamp, maxTimestamp }, maxSeries };
}

/** collect gathers a search into plain objects keyed by the series' text form. */
export async function collect(it: AsyncIterable<SeriesSamples>): Promise<Record<string, [number, number][]>> {
  const out: Record<string, [number, number][]> = {};
  for await (const s of it) {
    const key = '{' + s.labels.map((l) => `${l.name}=${l.value}`).join(',') + '}';
    out[key] = Array.from(s.timestamps, (t, i) => [t, s.values[i]!]);
  }
  return out;
}

/** signal returns a signal that never aborts. */
export function never(): AbortSignal {
  return new AbortController().signal;
}
