// FaultyNode: a storage node for tests of the cluster's insert and select sides — any storageapi
// implementation (the in-process storage, a MemorySearcher) behind a switch that makes it down
// (refuses at once, like a closed port), slow (answers after a delay) or frozen (answers nothing
// until thawed, like a process stopped with SIGSTOP).

import {
  type Inserter, type Labels, type MetricRow, NodeUnavailableError, type SearchQuery, type SeriesSamples, type StorageApi,
  type Tenant, type TenantLister, type TimeRange, type TsdbStatus, type TsdbStatusQuery,
} from '../../storageapi/index.ts';

export type FaultMode = { readonly kind: 'ok' } | { readonly kind: 'down' } | { readonly kind: 'slow'; readonly delayMs: number } | { readonly kind: 'frozen' };

export const OK: FaultMode = { kind: 'ok' };
export const DOWN: FaultMode = { kind: 'down' };
export const FROZEN: FaultMode = { kind: 'frozen' };
export const slow = (delayMs: number): FaultMode => ({ kind: 'slow', delayMs });

/** NodeBackend is what a FaultyNode wraps: any storageapi implementation; writes and tenant listing are optional. */
export type NodeBackend = StorageApi & Partial<Inserter> & Partial<TenantLister>;

export class FaultyNode implements StorageApi, Inserter, TenantLister {
  readonly name: string;
  readonly backend: NodeBackend;
  /** calls counts the calls that reached the gate, by method name. */
  readonly calls = new Map<string, number>();
  #mode: FaultMode = OK;
  #thaw: Array<() => void> = [];

  constructor(name: string, backend: NodeBackend) {
    this.name = name;
    this.backend = backend;
  }

  get mode(): FaultMode {
    return this.#mode;
  }

  /** setMode switches the fault; leaving 'frozen' lets the held calls go on under the new mode. */
  setMode(m: FaultMode): void {
    this.#mode = m;
    if (m.kind !== 'frozen') for (const t of this.#thaw.splice(0)) t();
  }

  async #gate(op: string, signal?: AbortSignal): Promise<void> {
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
    for (;;) {
      signal?.throwIfAborted();
      const m = this.#mode;
      if (m.kind === 'ok') return;
      if (m.kind === 'down') throw new NodeUnavailableError(this.name, `cannot ${op} on storage node ${this.name}: connection refused`);
      if (m.kind === 'slow') return sleep(m.delayMs, signal);
      // frozen: wait for setMode (or the caller giving up), then look again
      await new Promise<void>((resolve, reject) => {
        this.#thaw.push(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
  }

  async addRows(tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    await this.#gate('addRows');
    if (this.backend.addRows === undefined) throw new Error(`storage node ${this.name} takes no writes`);
    return this.backend.addRows(tenant, rows);
  }

  async *searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    await this.#gate('searchSeries', signal);
    yield* this.backend.searchSeries(q, signal);
  }

  async searchLabelSets(q: SearchQuery, limit: number, signal: AbortSignal): Promise<Labels[]> {
    await this.#gate('searchLabelSets', signal);
    return this.backend.searchLabelSets(q, limit, signal);
  }

  async labelNames(q: SearchQuery, limit: number, signal: AbortSignal): Promise<string[]> {
    await this.#gate('labelNames', signal);
    return this.backend.labelNames(q, limit, signal);
  }

  async labelValues(q: SearchQuery, labelName: string, limit: number, signal: AbortSignal): Promise<string[]> {
    await this.#gate('labelValues', signal);
    return this.backend.labelValues(q, labelName, limit, signal);
  }

  async seriesCount(tenant: Tenant, signal: AbortSignal): Promise<number> {
    await this.#gate('seriesCount', signal);
    return this.backend.seriesCount(tenant, signal);
  }

  async tsdbStatus(q: TsdbStatusQuery, signal: AbortSignal): Promise<TsdbStatus> {
    await this.#gate('tsdbStatus', signal);
    return this.backend.tsdbStatus(q, signal);
  }

  async deleteSeries(q: SearchQuery, signal: AbortSignal): Promise<number> {
    await this.#gate('deleteSeries', signal);
    return this.backend.deleteSeries(q, signal);
  }

  async listTenants(range: TimeRange, signal: AbortSignal): Promise<Tenant[]> {
    await this.#gate('listTenants', signal);
    if (this.backend.listTenants === undefined) throw new Error(`storage node ${this.name} cannot list tenants`);
    return this.backend.listTenants(range, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });
}
