// SelectNodeClient: storageapi's StorageApi (Searcher & Deleter) and TenantLister of one storage
// node, over its select port.

import type { ByteReader, ByteWriter } from '../bytes/index.ts';
import type {
  Labels, SearchQuery, SeriesSamples, StorageApi, Tenant, TenantLister, TimeRange, TsdbStatus, TsdbStatusQuery,
} from '../storageapi/api.ts';
import { checkTenant } from '../storageapi/tenant.ts';
import { Measurement, measure, raceAbort, unaryCall } from './client-call.ts';
import {
  readCount, readLabels, readStrings, readTenant, readTsdbStatus, writeLimit, writeSearchQuery, writeString, writeTenant, writeTimeRange,
  writeTsdbStatusQuery,
} from './codec.ts';
import {
  M_DELETE_SERIES, M_LABEL_NAMES, M_LABEL_VALUES, M_LIST_TENANTS, M_SEARCH_LABEL_SETS, M_SEARCH_SERIES, M_SERIES_COUNT, M_TSDB_STATUS,
  SERVICE_SELECT,
} from './frame.ts';
import type { NodeClientOptions } from './options.ts';
import { clientPool, type ConnectionPool } from './pool.ts';
import { SeriesStream, streamSeries } from './series-stream.ts';

/**
 * SelectNodeClient reads from one storage node. Calls are multiplexed over up to maxConnections
 * (default 4) pooled connections. Each method throws what the node's storage threw (same classes
 * and messages), NodeUnavailableError when the node cannot be reached or does not answer within
 * the timeout, or the signal's reason once it aborts; timeouts and aborts cancel the node's work.
 */
export class SelectNodeClient implements StorageApi, TenantLister {
  readonly address: string;
  readonly #timeoutMs: number;
  readonly #pool: ConnectionPool;

  constructor(opts: NodeClientOptions) {
    this.address = opts.address;
    ({ timeoutMs: this.#timeoutMs, pool: this.#pool } = clientPool(opts, SERVICE_SELECT, 4));
  }

  #call<T>(method: number, tenant: Tenant | undefined, signal: AbortSignal, build: (w: ByteWriter) => void, decode: (r: ByteReader) => T): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    try {
      if (tenant !== undefined) checkTenant(tenant);
    } catch (err) {
      return Promise.reject(err);
    }
    return measure(this.address, method, signal, async () => {
      const conn = await raceAbort(this.#pool.acquire(), signal);
      return unaryCall(conn, { method, build, decode, signal, timeoutMs: this.#timeoutMs });
    });
  }

  /**
   * searchSeries streams the node's series as they come (bounded memory: a window of 2 MiB plus
   * the series in assembly). The call starts at the first next(); the timeout applies to each wait
   * for the next series.
   */
  searchSeries(q: SearchQuery, signal: AbortSignal): AsyncIterable<SeriesSamples> {
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        signal.throwIfAborted();
        checkTenant(q.tenant);
        const m = new Measurement(self.address, M_SEARCH_SERIES, signal);
        try {
          const conn = await raceAbort(self.#pool.acquire(), signal);
          yield* streamSeries(new SeriesStream(conn, q, signal, self.#timeoutMs));
          m.end();
        } catch (err) {
          m.end(err);
          throw err;
        } finally {
          m.end(); // the consumer left early: the call was cancelled, not failed
        }
      },
    };
  }

  searchLabelSets(q: SearchQuery, limit: number, signal: AbortSignal): Promise<Labels[]> {
    return this.#call(M_SEARCH_LABEL_SETS, q.tenant, signal, (w) => {
      writeSearchQuery(w, q);
      writeLimit(w, limit);
    }, (r) => {
      const n = readCount(r, 'label set');
      const out: Labels[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readLabels(r);
      return out;
    });
  }

  labelNames(q: SearchQuery, limit: number, signal: AbortSignal): Promise<string[]> {
    return this.#call(M_LABEL_NAMES, q.tenant, signal, (w) => {
      writeSearchQuery(w, q);
      writeLimit(w, limit);
    }, readStrings);
  }

  labelValues(q: SearchQuery, labelName: string, limit: number, signal: AbortSignal): Promise<string[]> {
    return this.#call(M_LABEL_VALUES, q.tenant, signal, (w) => {
      writeSearchQuery(w, q);
      writeString(w, labelName);
      writeLimit(w, limit);
    }, readStrings);
  }

  seriesCount(tenant: Tenant, signal: AbortSignal): Promise<number> {
    return this.#call(M_SERIES_COUNT, tenant, signal, (w) => writeTenant(w, tenant), (r) => r.readUvarint());
  }

  tsdbStatus(q: TsdbStatusQuery, signal: AbortSignal): Promise<TsdbStatus> {
    return this.#call(M_TSDB_STATUS, q.tenant, signal, (w) => writeTsdbStatusQuery(w, q), readTsdbStatus);
  }

  deleteSeries(q: SearchQuery, signal: AbortSignal): Promise<number> {
    return this.#call(M_DELETE_SERIES, q.tenant, signal, (w) => writeSearchQuery(w, q), (r) => r.readUvarint());
  }

  listTenants(range: TimeRange, signal: AbortSignal): Promise<Tenant[]> {
    return this.#call(M_LIST_TENANTS, undefined, signal, (w) => writeTimeRange(w, range), (r) => {
      const n = readCount(r, 'tenant', 8);
      const out: Tenant[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readTenant(r);
      return out;
    });
  }

  /** close closes the connections; calls in flight fail with NodeUnavailableError. */
  async close(): Promise<void> {
    this.#pool.close();
  }
}
