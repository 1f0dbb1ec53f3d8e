// The insert service of a storage node (-insertAddr): addRows, decoded into columns over the
// connection's series dictionary and handed to the engine's keyed write path.

import type { KeyedRows } from '../storage/index.ts';
import type { Inserter, Tenant } from '../storageapi/api.ts';
import { expectEnd } from './codec.ts';
import { M_ADD_ROWS, MAX_FRAME_BYTES, SERVICE_INSERT } from './frame.ts';
import type { RpcServer, RpcServerOptions } from './options.ts';
import { keyedToRows, ServerDictionary } from './rows-codec.ts';
import { serve, type Service } from './server.ts';

/**
 * DEFAULT_INSERT_CONCURRENT_CALLS caps the addRows calls a connection has running (decoded, waiting
 * for the engine): each holds its batch's columns, up to ~10 MB for an 8 MiB frame.
 */
export const DEFAULT_INSERT_CONCURRENT_CALLS = 8;

/** DEFAULT_DICTIONARY_BYTES is the series dictionary budget of one insert connection. */
export const DEFAULT_DICTIONARY_BYTES = 32 * 2 ** 20;

/** KeyedInserter is an Inserter that also takes batches in columns (the storage engine is one). */
interface KeyedInserter extends Inserter {
  addKeyedRows(tenant: Tenant, batch: KeyedRows): Promise<void>;
}

function isKeyed(s: Inserter): s is KeyedInserter {
  return typeof (s as Partial<KeyedInserter>).addKeyedRows === 'function';
}

/** InsertRpcOptions add the series dictionary budget to the common server options. */
export interface InsertRpcOptions extends RpcServerOptions {
  /** dictionaryBytes is the series dictionary budget per connection (estimated bytes). Default 32 MiB. */
  readonly dictionaryBytes?: number;
}

/**
 * serveInsertRpc serves storage's write side on listenAddr ("host:port", ":port"). addRows
 * answers once storage.addRows (or addKeyedRows) resolved: the rows are in the node's WAL.
 */
export function serveInsertRpc(storage: Inserter, listenAddr: string, opts: InsertRpcOptions = {}): Promise<RpcServer> {
  const dictionaryBytes = opts.dictionaryBytes ?? DEFAULT_DICTIONARY_BYTES;
  const service: Service = {
    id: SERVICE_INSERT,
    maxFrameBytes: opts.maxFrameBytes ?? MAX_FRAME_BYTES,
    dictionaryBytes,
    methods: new Set([M_ADD_ROWS]),
    connection() {
      const dict = new ServerDictionary(dictionaryBytes);
      return {
        prepare(_call, r) {
          const { tenant, rows } = dict.decode(r);
          expectEnd(r);
          // A write cannot be taken back once it started: the signal (cancel, timeout, shutdown)
          // only stops the node from waiting; the answer is sent whenever it is known.
          if (isKeyed(storage)) return () => storage.addKeyedRows(tenant, rows);
          return () => storage.addRows(tenant, keyedToRows(rows));
        },
      };
    },
  };
  return serve(service, listenAddr, { enableTCP6: opts.enableTCP6 ?? false, maxConcurrentCalls: opts.maxConcurrentCalls ?? DEFAULT_INSERT_CONCURRENT_CALLS, overload: 'pause', logger: opts.logger });
}
