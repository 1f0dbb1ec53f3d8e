// The select service of a storage node (-selectAddr): the read and delete side of storageapi and
// the tenant list. searchSeries streams one series at a time under the client's byte credit.

import type { ByteReader, ByteWriter } from '../bytes/index.ts';
import { plainSeriesBlocks, type SeriesBlockSearcher } from '../storage/series-blocks.ts';
import type { StorageApi, TenantLister } from '../storageapi/api.ts';
import {
  expectEnd, readSearchQuery, readString, readTimeRange, readTsdbStatusQuery, writeLabels, writeStrings, writeTenant, writeTsdbStatus,
} from './codec.ts';
import {
  M_DELETE_SERIES, M_LABEL_NAMES, M_LABEL_VALUES, M_LIST_TENANTS, M_SEARCH_LABEL_SETS, M_SEARCH_SERIES, M_SERIES_COUNT, M_TSDB_STATUS,
  SERVICE_SELECT,
} from './frame.ts';
import type { RpcServer, RpcServerOptions } from './options.ts';
import { readTenant } from './codec.ts';
import type { ServerCall } from './server-call.ts';
import { serve, type ConnectionHandler, type Service } from './server.ts';

/** DEFAULT_SELECT_MAX_FRAME_BYTES bounds a select request (matchers of huge Grafana variables fit). */
export const DEFAULT_SELECT_MAX_FRAME_BYTES = 4 * 2 ** 20;

/**
 * DEFAULT_SELECT_CONCURRENT_CALLS caps the calls one select connection has running; more are
 * refused (kind unavailable). Not a pause: streams waiting for CREDIT need the connection read.
 * tsdb-select bounds its own concurrency well below this.
 */
export const DEFAULT_SELECT_CONCURRENT_CALLS = 256;

type Api = StorageApi & TenantLister & Partial<SeriesBlockSearcher>;

function isBlockSearcher(s: Api): s is Api & SeriesBlockSearcher {
  return typeof s.searchSeriesBlocks === 'function';
}

// unary runs a call whose answer is one RESULT frame written by write.
const unary = <T>(call: ServerCall, work: () => Promise<T>, write: (w: ByteWriter, v: T) => void) => async () => {
  const v = await work();
  call.result((w) => write(w, v));
};

function prepare(storage: Api, call: ServerCall, r: ByteReader): () => Promise<void> {
  const signal = call.signal;
  switch (call.method) {
    case M_SEARCH_SERIES: {
      const q = readSearchQuery(r);
      const window = r.readUvarint();
      expectEnd(r);
      call.addCredit(window);
      return async () => {
        let n = 0;
        // A storage engine ships its stored blocks (series-blocks.ts); any other searcher (test
        // doubles) its finished samples, in the same message.
        if (isBlockSearcher(storage)) {
          for await (const s of storage.searchSeriesBlocks(q, signal)) {
            await call.sendSeries(s);
            n++;
          }
        } else {
          for await (const s of storage.searchSeries(q, signal)) {
            await call.sendSeries(plainSeriesBlocks(s));
            n++;
          }
        }
        call.result((w) => w.writeUvarint(n));
      };
    }
    case M_SEARCH_LABEL_SETS: {
      const q = readSearchQuery(r);
      const limit = r.readUvarint();
      expectEnd(r);
      return unary(call, () => storage.searchLabelSets(q, limit, signal), (w, sets) => {
        w.writeUvarint(sets.length);
        for (const l of sets) writeLabels(w, l);
      });
    }
    case M_LABEL_NAMES: {
      const q = readSearchQuery(r);
      const limit = r.readUvarint();
      expectEnd(r);
      return unary(call, () => storage.labelNames(q, limit, signal), writeStrings);
    }
    case M_LABEL_VALUES: {
      const q = readSearchQuery(r);
      const name = readString(r);
      const limit = r.readUvarint();
      expectEnd(r);
      return unary(call, () => storage.labelValues(q, name, limit, signal), writeStrings);
    }
    case M_SERIES_COUNT: {
      const tenant = readTenant(r);
      expectEnd(r);
      return unary(call, () => storage.seriesCount(tenant, signal), (w, n) => w.writeUvarint(n));
    }
    case M_TSDB_STATUS: {
      const q = readTsdbStatusQuery(r);
      expectEnd(r);
      return unary(call, () => storage.tsdbStatus(q, signal), writeTsdbStatus);
    }
    case M_DELETE_SERIES: {
      const q = readSearchQuery(r);
      expectEnd(r);
      return unary(call, () => storage.deleteSeries(q, signal), (w, n) => w.writeUvarint(n));
    }
    case M_LIST_TENANTS: {
      const range = readTimeRange(r);
      expectEnd(r);
      return unary(call, () => storage.listTenants(range, signal), (w, ts) => {
        w.writeUvarint(ts.length);
        for (const t of ts) writeTenant(w, t);
      });
    }
    default:
      throw new Error(`method ${call.method} has no select handler`); // Service.methods keeps other methods out
  }
}

/** serveSelectRpc serves storage's read side, deletion and tenant list on listenAddr. */
export function serveSelectRpc(storage: Api, listenAddr: string, opts: RpcServerOptions = {}): Promise<RpcServer> {
  const handler: ConnectionHandler = { prepare: (call, r) => prepare(storage, call, r) };
  const service: Service = {
    id: SERVICE_SELECT,
    maxFrameBytes: opts.maxFrameBytes ?? DEFAULT_SELECT_MAX_FRAME_BYTES,
    dictionaryBytes: 0,
    methods: new Set([M_SEARCH_SERIES, M_SEARCH_LABEL_SETS, M_LABEL_NAMES, M_LABEL_VALUES, M_SERIES_COUNT, M_TSDB_STATUS, M_DELETE_SERIES, M_LIST_TENANTS]),
    connection: () => handler,
  };
  return serve(service, listenAddr, { enableTCP6: opts.enableTCP6 ?? false, maxConcurrentCalls: opts.maxConcurrentCalls ?? DEFAULT_SELECT_CONCURRENT_CALLS, overload: 'reject', logger: opts.logger });
}
