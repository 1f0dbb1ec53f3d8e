// InsertNodeClient: the storageapi Inserter of one storage node, over its insert port.

import type { ByteWriter } from '../bytes/index.ts';
import type { KeyedRows } from '../storage/index.ts';
import type { Inserter, MetricRow, Tenant } from '../storageapi/api.ts';
import { NodeUnavailableError } from '../storageapi/errors.ts';
import { checkTenant } from '../storageapi/tenant.ts';
import { measure, unaryCall } from './client-call.ts';
import { M_ADD_ROWS, SERVICE_INSERT } from './frame.ts';
import type { NodeClientOptions } from './options.ts';
import { clientPool, type ConnectionPool } from './pool.ts';
import { ClientDictionary } from './rows-codec.ts';

/** TARGET_FRAME_BYTES caps one addRows frame (a larger batch is sent as several pipelined calls). */
const TARGET_FRAME_BYTES = 8 * 2 ** 20;

/**
 * InsertNodeClient writes rows to one storage node. Calls are pipelined on one connection by
 * default (maxConnections 1): the node's series dictionary is per connection, and one connection
 * carries far more than one node's engine can write.
 */
export class InsertNodeClient implements Inserter {
  readonly address: string;
  readonly #timeoutMs: number;
  readonly #pool: ConnectionPool;

  constructor(opts: NodeClientOptions) {
    this.address = opts.address;
    ({ timeoutMs: this.#timeoutMs, pool: this.#pool } = clientPool(opts, SERVICE_INSERT, 1));
  }

  /**
   * addRows resolves once the node has the rows in its WAL. Errors: the engine's (a
   * LimitExceededError after the valid rows were stored, an Error for malformed rows), or
   * NodeUnavailableError when the node cannot be reached or does not answer within the timeout —
   * then some or all of the rows may have been stored.
   */
  async addRows(tenant: Tenant, rows: readonly MetricRow[]): Promise<void> {
    await this.#write(tenant, rows.length, (dict, w, from, maxFrame) => dict.encode(w, tenant, rows, from, maxFrame));
  }

  /**
   * addKeyedRows is addRows for rows in columns (b.keys number series in b.table, which must only
   * grow): a series the connection has seen before costs no label work (ClientDictionary.encodeKeyed).
   * b's arrays are read until the call settles, possibly after a caller's own timeout gave up on
   * it (while the connection is being set up): pass arrays nothing else reuses.
   */
  async addKeyedRows(tenant: Tenant, b: KeyedRows): Promise<void> {
    await this.#write(tenant, b.length, (dict, w, from, maxFrame) => dict.encodeKeyed(w, tenant, b, from, maxFrame));
  }

  // write sends count rows as pipelined addRows calls, each encoding rows [from…] until its frame is full.
  async #write(tenant: Tenant, count: number, encode: (dict: ClientDictionary, w: ByteWriter, from: number, maxFrame: number) => number): Promise<void> {
    checkTenant(tenant);
    if (count === 0) return;
    await measure(this.address, M_ADD_ROWS, undefined, async () => {
      const conn = await this.#pool.acquire();
      const dict = (conn.dictionary ??= new ClientDictionary(conn.hello.dictionaryBytes));
      const maxFrame = Math.min(conn.hello.maxFrameBytes, TARGET_FRAME_BYTES);
      const calls: Promise<void>[] = [];
      for (let from = 0; from < count;) {
        let next = from;
        const start = from;
        calls.push(unaryCall(conn, {
          method: M_ADD_ROWS,
          timeoutMs: this.#timeoutMs,
          sizeHint: Math.min(maxFrame, (count - start) * 20 + 1024),
          build: (w) => void (next = encode(dict, w, start, maxFrame)),
          decode: () => undefined,
        }));
        if (next === from) break; // the call failed before encoding a row; its promise says why
        from = next;
      }
      const results = await Promise.allSettled(calls);
      const failed = results.filter((r) => r.status === 'rejected').map((r) => r.reason as unknown);
      if (failed.length > 0) throw failed.find((e) => e instanceof NodeUnavailableError) ?? failed[0];
    });
  }

  /** close closes the connections; calls in flight fail with NodeUnavailableError. */
  async close(): Promise<void> {
    this.#pool.close();
  }
}
