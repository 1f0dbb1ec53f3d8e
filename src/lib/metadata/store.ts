import type { MetadataUpdate, MetricType } from '../protoparser/common/metadata.ts';
import type { Tenant } from '../storageapi/index.ts';

// In-memory metric metadata (HELP, TYPE, UNIT per metric family and tenant), bounded in bytes, as
// VictoriaMetrics keeps it (lib/storage/metricsmetadata): one entry per family, whose fields the
// last update that gives them sets (text bodies give one field per line), evicting the least
// recently written entries once over the budget. Served at /api/v1/metadata.

/** MetricMetadata is one family's metadata as /api/v1/metadata lists it. */
export interface MetricMetadata {
  readonly type: MetricType;
  readonly help: string;
  readonly unit: string;
}

/** MetadataQuery selects what /api/v1/metadata returns. */
export interface MetadataQuery {
  /** metric: only this family ('' = all). */
  readonly metric: string;
  /** limit: at most this many families (0 = no limit). */
  readonly limit: number;
  /** limitPerMetric: at most this many entries per family (0 = no limit; a family has one entry here). */
  readonly limitPerMetric: number;
}

/** MetadataReader is what the read API needs of a metadata store. */
export interface MetadataReader {
  /** query returns the tenant's metadata by family name, names in ascending order. */
  query(tenant: Tenant, q: MetadataQuery): Record<string, MetricMetadata[]>;
}

/** StoredMetadata is one entry as persisted (see persist.ts), in least recently written order. */
export interface StoredMetadata extends MetricMetadata {
  readonly accountID: number;
  readonly projectID: number;
  readonly metric: string;
}

interface Entry {
  readonly accountID: number;
  readonly projectID: number;
  readonly metric: string;
  type: MetricType;
  help: string;
  unit: string;
  bytes: number;
}

// Per entry beyond its strings: the Map slot, the object, the key string (an estimate).
const ENTRY_OVERHEAD_BYTES = 160;
const sizeOf = (metric: string, help: string, unit: string): number => ENTRY_OVERHEAD_BYTES + 2 * (2 * metric.length + help.length + unit.length);
const keyOf = (accountID: number, projectID: number, metric: string): string => `${accountID}:${projectID}:${metric}`;

/**
 * MetadataStore keeps metric metadata within maxBytes (estimated JS memory). Not thread-safe;
 * one per process (the event loop serialises callers).
 */
export class MetadataStore implements MetadataReader {
  readonly maxBytes: number;
  // Map order is write order: an entry written again moves to the end, so the first are the least
  // recently written, evicted first.
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  #dropped = 0;
  #version = 0;

  constructor(maxBytes: number) {
    if (!(maxBytes >= 0)) throw new RangeError(`metadata store budget must be 0 or more bytes; got ${maxBytes}`);
    this.maxBytes = maxBytes;
  }

  /** size is the number of families held (over all tenants). */
  get size(): number {
    return this.#entries.size;
  }

  /** bytes is the estimated memory held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** dropped counts entries evicted or refused because of maxBytes, since the start. */
  get dropped(): number {
    return this.#dropped;
  }

  /** version changes whenever the content changes (persistence saves only then). */
  get version(): number {
    return this.#version;
  }

  /** add records what u says about a family of tenant: the fields it gives replace the held ones. */
  add(tenant: Tenant, u: MetadataUpdate): void {
    const key = keyOf(tenant.accountID, tenant.projectID, u.metric);
    const e = this.#entries.get(key);
    if (e !== undefined && (u.type === undefined || u.type === e.type) && (u.help === undefined || u.help === e.help) && (u.unit === undefined || u.unit === e.unit)) {
      // Nothing new: only the write order changes (the common case, every scrape).
      this.#entries.delete(key);
      this.#entries.set(key, e);
      return;
    }
    this.#put(key, {
      accountID: tenant.accountID, projectID: tenant.projectID, metric: u.metric,
      type: u.type ?? e?.type ?? 'unknown', help: u.help ?? e?.help ?? '', unit: u.unit ?? e?.unit ?? '', bytes: 0,
    }, e);
  }

  #put(key: string, next: Entry, prev: Entry | undefined): void {
    next.bytes = sizeOf(next.metric, next.help, next.unit);
    if (next.bytes > this.maxBytes) {
      // Larger than the whole budget: refused, the previous entry kept as it was.
      this.#dropped++;
      return;
    }
    if (prev !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= prev.bytes;
    }
    this.#entries.set(key, next);
    this.#bytes += next.bytes;
    this.#version++;
    for (const [k, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= old.bytes;
      this.#dropped++;
    }
  }

  query(tenant: Tenant, q: MetadataQuery): Record<string, MetricMetadata[]> {
    const names: string[] = [];
    if (q.metric !== '') {
      if (this.#entries.has(keyOf(tenant.accountID, tenant.projectID, q.metric))) names.push(q.metric);
    } else {
      for (const e of this.#entries.values()) if (e.accountID === tenant.accountID && e.projectID === tenant.projectID) names.push(e.metric);
      names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    const out: Record<string, MetricMetadata[]> = {};
    const perMetric = q.limitPerMetric > 0 ? q.limitPerMetric : Infinity;
    for (const name of q.limit > 0 ? names.slice(0, q.limit) : names) {
      const e = this.#entries.get(keyOf(tenant.accountID, tenant.projectID, name))!;
      out[name] = [{ type: e.type, help: e.help, unit: e.unit }].slice(0, perMetric);
    }
    return out;
  }

  /** entries lists every entry, least recently written first (what persist.ts saves). */
  entries(): StoredMetadata[] {
    return [...this.#entries.values()].map((e) => ({ accountID: e.accountID, projectID: e.projectID, metric: e.metric, type: e.type, help: e.help, unit: e.unit }));
  }

  /** load adds saved entries in their order (so the oldest stay first), within maxBytes. */
  load(entries: readonly StoredMetadata[]): void {
    for (const e of entries) this.add({ accountID: e.accountID, projectID: e.projectID }, e);
  }
}
