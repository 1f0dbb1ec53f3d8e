import type { Tenant } from '../storageapi/api.ts';
import { tenantKey } from './index/keys.ts';
import type { KeyTable } from './keyed-rows.ts';
import { type CacheGroup, GenCache } from './series-cache.ts';

/**
 * SeriesRef is what the write path caches per series: its ID plus the last day and hour it saw
 * a sample for (so the per-day index and active-series checks run once per series per day/hour)
 * and its slot in the active buffer.
 */
export interface SeriesRef {
  readonly id: number;
  day: number;
  hour: number;
  gen: number;
  slot: number;
}

/** TenantState is the per-tenant part of the write path and of the per-tenant statistics. */
export class TenantState {
  readonly tenant: Tenant;
  /** key is the tenant's binary index key. */
  readonly key: string;
  /** name is "accountID:projectID". */
  readonly name: string;
  /** byRawKey maps MetricRow.rawKey to the series (hot path). */
  readonly byRawKey: GenCache<SeriesRef>;
  /** byLabels maps a canonical labels key to the series. */
  readonly byLabels: GenCache<SeriesRef>;
  seriesCreated = 0;
  rowsAdded = 0;
  // Key number → series per key table of keyed batches. Weak: a table the parser dropped takes
  // its refs with it; its size is bounded by the parser's dictionary budget.
  #keyed = new WeakMap<KeyTable, (SeriesRef | undefined)[]>();
  #hour = -1;
  #cur = new Set<number>();
  #prev = new Set<number>();

  constructor(tenant: Tenant, group: CacheGroup) {
    this.tenant = Object.freeze({ accountID: tenant.accountID, projectID: tenant.projectID });
    this.key = tenantKey(tenant);
    this.name = `${tenant.accountID}:${tenant.projectID}`;
    this.byRawKey = new GenCache(group);
    this.byLabels = new GenCache(group);
  }

  /** keyedRefs returns the series refs cached for the key numbers of table (sparse). */
  keyedRefs(table: KeyTable): (SeriesRef | undefined)[] {
    let refs = this.#keyed.get(table);
    if (refs === undefined) {
      refs = [];
      this.#keyed.set(table, refs);
    }
    return refs;
  }

  /** markActive records that series id received a sample during clock hour `hour`. */
  markActive(id: number, hour: number): void {
    if (hour !== this.#hour) this.#rollTo(hour);
    this.#cur.add(id);
  }

  #rollTo(hour: number): void {
    if (hour === this.#hour + 1) {
      this.#prev = this.#cur;
    } else if (hour > this.#hour) {
      this.#prev = new Set();
    } else {
      return; // a clock going backwards keeps the current window
    }
    this.#cur = new Set();
    this.#hour = hour;
  }

  /**
   * activeSeries counts series with a sample written during the current or the previous clock
   * hour (the "last hour" window of tsdb_tenant_active_timeseries).
   */
  activeSeries(hour: number): number {
    if (hour > this.#hour) this.#rollTo(hour);
    let n = this.#cur.size;
    for (const id of this.#prev) if (!this.#cur.has(id)) n++;
    return n;
  }

  /** forget drops the cached refs (after deletions) so no stale series is reused. */
  forget(): void {
    this.byRawKey.clear();
    this.byLabels.clear();
    this.#keyed = new WeakMap();
  }
}

/** DeletedSeries is the set of deleted series IDs, counted per tenant. */
export class DeletedSeries {
  readonly #ids = new Set<number>();
  readonly #perTenant = new Map<string, number>();
  #sorted: Float64Array | undefined;

  has(id: number): boolean {
    return this.#ids.has(id);
  }

  /** add records a deletion; returns false when id was already deleted. */
  add(id: number, tenantName: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    this.#sorted = undefined;
    this.#perTenant.set(tenantName, (this.#perTenant.get(tenantName) ?? 0) + 1);
    return true;
  }

  countOf(tenantName: string): number {
    return this.#perTenant.get(tenantName) ?? 0;
  }

  get size(): number {
    return this.#ids.size;
  }

  /** sorted returns the deleted IDs ascending (shared; do not modify). */
  sorted(): Float64Array {
    this.#sorted ??= Float64Array.from(this.#ids).sort();
    return this.#sorted;
  }
}
