// Behaviour of the storage node RPC beyond the storageapi contract: dead, slow and refusing nodes,
// cancellation reaching the node, flow control, long series, frame splitting, the series
// dictionary, wrong ports, shutdown.

import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySearcher } from '../query/memory-searcher.ts';
import type { Inserter, Label, LabelMatcher, MetricRow, SearchQuery, SeriesSamples, StorageApi, Tenant, TenantLister, TimeRange } from '../storageapi/api.ts';
import { MatcherError, NodeUnavailableError } from '../storageapi/errors.ts';
import { SeriesKeyTable } from '../protoparser/common/series-keys.ts';
import { InsertNodeClient, SelectNodeClient, serveInsertRpc, serveSelectRpc, type RpcServer } from './index.ts';
import { writeString } from './codec.ts';
import { finishFrame, newFrame, PROTOCOL_VERSION, SERVICE_SELECT, T_HELLO_OK } from './frame.ts';
import { STREAM_WINDOW_BYTES } from './series-stream.ts';
import { ByteWriter } from '../bytes/index.ts';
import { encodeTimestamps } from '../storage/encoding/timestamps.ts';
import { SeriesBlocksWriter, type SeriesBlocks } from '../storage/series-blocks.ts';

const T: Tenant = { accountID: 0, projectID: 0 };
const never = () => new AbortController().signal;
const ls = (o: Record<string, string>): Label[] => Object.keys(o).sort().map((name) => ({ name, value: o[name]! }));
const q = (sets: LabelMatcher[][] = [], timeRange: TimeRange = { minTimestamp: 0, maxTimestamp: 1e13 }): SearchQuery => ({ tenant: T, matcherSets: sets, timeRange, maxSeries: 0 });


const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function selectNode(storage: StorageApi & TenantLister, clientOpts: { timeoutMs?: number } = {}): Promise<{ server: RpcServer; client: SelectNodeClient }> {
  const server = await serveSelectRpc(storage, '127.0.0.1:0');
  const client = new SelectNodeClient({ address: server.address, ...clientOpts });
  cleanups.push(() => server.close(), () => client.close());
  return { server, client };
}

/** rawServer accepts TCP connections and hands them to onSocket (a misbehaving node). */
async function rawServer(onSocket: (s: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    onSocket(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  }));
  const a = server.address() as { port: number };
  return `127.0.0.1:${a.port}`;
}

const waitFor = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond(), what).toBe(true);
};

describe('unavailable nodes', () => {
  it('a refused connection fails fast with NodeUnavailableError naming the node', async () => {
    const addr = await rawServer((s) => s.destroy());
    const client = new SelectNodeClient({ address: addr });
    cleanups.push(() => client.close());
    const started = Date.now();
    const err = await client.labelNames(q(), 0, never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as NodeUnavailableError).node).toBe(addr);
    expect((err as Error).message).toContain(addr);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a node that accepts but never answers the handshake fails within the connect timeout', async () => {
    const addr = await rawServer(() => {});
    const client = new InsertNodeClient({ address: addr, connectTimeoutMs: 200 });
    cleanups.push(() => client.close());
    const started = Date.now();
    const err = await client.addRows(T, [{ labels: ls({ __name__: 'x' }), timestamp: 1, value: 1 }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as Error).message).toMatch(/no handshake within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a malformed address is refused when the client is made', () => {
    expect(() => new SelectNodeClient({ address: 'storage-0' })).toThrow(/invalid storage node address "storage-0": expected host:port/);
    expect(() => new InsertNodeClient({ address: 'h:99999' })).toThrow(/invalid storage node address/);
    expect(new InsertNodeClient({ address: '[::1]:8400' }).address).toBe('[::1]:8400');
  });

  it('nothing listening: ECONNREFUSED as NodeUnavailableError', async () => {
    const addr = await rawServer(() => {});
    cleanups.splice(0).forEach((c) => void c()); // close the listener: the port refuses now
    await new Promise((r) => setTimeout(r, 50));
    const client = new SelectNodeClient({ address: addr });
    cleanups.push(() => client.close());
    await expect(client.seriesCount(T, never())).rejects.toBeInstanceOf(NodeUnavailableError);
  });

  it('a slow call times out, and the timeout cancels the work on the node', async () => {
    const storage = new MemorySearcher();
    let remote: AbortSignal | undefined;
    storage.labelNames = (_q, _limit, signal) => {
      remote = signal;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const { client } = await selectNode(storage, { timeoutMs: 150 });
    const err = await client.labelNames(q(), 0, never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as Error).message).toMatch(/did not answer labelNames within 150 ms/);
    await waitFor(() => remote?.aborted === true, 'the node saw the cancellation');
    // the connection stays usable
    storage.labelNames = async () => ['ok'];
    expect(await client.labelNames(q(), 0, never())).toEqual(['ok']);
  });

  it('a node that went silent after the handshake: the timed-out connection is dropped and the next call dials again', async () => {
    let connections = 0;
    const addr = await rawServer((s) => {
      connections++;
      s.once('data', () => {
        // answer HELLO, then say nothing ever again
        const w = newFrame(T_HELLO_OK, 0);
        w.writeUvarint(PROTOCOL_VERSION);
        w.writeU8(SERVICE_SELECT);
        w.writeUvarint(1 << 20);
        w.writeUvarint(0);
        writeString(w, 'silent');
        s.write(finishFrame(w));
      });
    });
    const client = new SelectNodeClient({ address: addr, timeoutMs: 150 });
    cleanups.push(() => client.close());
    await expect(client.seriesCount(T, never())).rejects.toBeInstanceOf(NodeUnavailableError);
    await expect(client.seriesCount(T, never())).rejects.toBeInstanceOf(NodeUnavailableError);
    expect(connections).toBe(2);
  });

  it('a node going away mid-call fails the call with NodeUnavailableError', async () => {
    const storage = new MemorySearcher();
    let arrived = false;
    storage.labelNames = (_q, _l, signal) => {
      arrived = true;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const { server, client } = await selectNode(storage);
    const pending = client.labelNames(q(), 0, never());
    await waitFor(() => arrived, 'the call reached the node');
    const closing = server.close(); // cancels running searches, answers them "shutting down"
    await expect(pending).rejects.toBeInstanceOf(NodeUnavailableError);
    await closing;
  });
});

describe('cancellation and errors', () => {
  it('a node sending a block that does not decode: the stream fails with an error naming the series, the client carries on', async () => {
    const storage = Object.assign(new MemorySearcher(), {
      // A block whose timestamps do not end at its header's maxTs (a damaged part on the node).
      async *searchSeriesBlocks(): AsyncIterable<SeriesBlocks> {
        const w = new SeriesBlocksWriter();
        w.begin();
        w.part();
        const tw = new ByteWriter();
        const tsEnc = encodeTimestamps(Float64Array.of(10, 20, 30), 0, 3, tw, 0);
        w.block({ rows: 3, minTs: 10, maxTs: 31, tsEnc, valEnc: 0 }, tw.bytes(), new Uint8Array(8));
        yield { labels: ls({ __name__: 'broken' }), minTs: 0, maxTs: 100, dedupMs: 0, chunks: w.end() };
      },
    });
    storage.labelNames = async () => ['ok'];
    const { client } = await selectNode(storage);
    const err = await (async () => {
      for await (const _ of client.searchSeries(q(), never()));
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as Error).message).toMatch(/cannot decode a SERIES frame of series \{__name__="broken"\}.*maxTs/);
    expect(await client.labelNames(q(), 0, never())).toEqual(['ok']);
  });

  it('an abort rejects with the signal reason at once and cancels the work on the node', async () => {
    const storage = new MemorySearcher();
    let remote: AbortSignal | undefined;
    storage.labelValues = (_q, _n, _l, signal) => {
      remote = signal;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const { client } = await selectNode(storage);
    const ac = new AbortController();
    const pending = client.labelValues(q(), 'job', 0, ac.signal);
    await waitFor(() => remote !== undefined, 'the call reached the node');
    const reason = new Error('client went away');
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await waitFor(() => remote?.aborted === true, 'the node saw the cancellation');
  });

  it('re-creates MatcherError and plain errors with their messages', async () => {
    const storage = new MemorySearcher();
    storage.labelNames = async () => {
      throw new MatcherError('invalid regexp "(" for label "job": missing )');
    };
    storage.seriesCount = async () => {
      throw new Error('cannot read index part "x": disk on fire');
    };
    const { client } = await selectNode(storage);
    const m = await client.labelNames(q(), 0, never()).catch((e: unknown) => e);
    expect(m).toBeInstanceOf(MatcherError);
    expect((m as Error).message).toBe('invalid regexp "(" for label "job": missing )');
    const e = await client.seriesCount(T, never()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(NodeUnavailableError);
    expect((e as Error).message).toBe('cannot read index part "x": disk on fire');
  });

  it('a result the node cannot encode (a storage bug) is answered as an error, and the node lives on', async () => {
    const storage = new MemorySearcher();
    storage.labelNames = async () => [undefined as unknown as string];
    const { client } = await selectNode(storage);
    const err = await client.labelNames(q(), 0, never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(NodeUnavailableError);
    expect(await client.seriesCount(T, never())).toBe(0);
  });

  it('refuses a tenant that is not two uint32s before sending anything', async () => {
    const { client } = await selectNode(new MemorySearcher());
    await expect(client.seriesCount({ accountID: -1, projectID: 0 }, never())).rejects.toThrow(/invalid tenant/);
    await expect(client.seriesCount({ accountID: 2 ** 32, projectID: 0 }, never())).rejects.toThrow(/invalid tenant/);
  });

  it('a client of the wrong service is told which port to dial', async () => {
    const { server } = await selectNode(new MemorySearcher());
    const wrong = new InsertNodeClient({ address: server.address });
    cleanups.push(() => wrong.close());
    const err = await wrong.addRows(T, [{ labels: ls({ __name__: 'x' }), timestamp: 1, value: 1 }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as Error).message).toMatch(/this is the select port of the storage node; a client of the insert service must dial -insertAddr/);
  });
});

describe('searchSeries streaming', () => {
  const series = (i: number, n: number): SeriesSamples => ({
    labels: ls({ __name__: 'big', i: String(i) }),
    timestamps: Float64Array.from({ length: n }, (_, k) => k * 1000),
    values: Float64Array.from({ length: n }, (_, k) => Math.sin(k + i)),
  });

  it('produces series only as fast as the consumer takes them (credit)', async () => {
    const storage = new MemorySearcher();
    let produced = 0;
    storage.searchSeries = async function* () {
      for (let i = 0; i < 200; i++) {
        produced++;
        yield series(i, 10_000); // about 80 KB on the wire (XOR-encoded values)
      }
    };
    const { client } = await selectNode(storage);
    const it = client.searchSeries(q(), never())[Symbol.asyncIterator]();
    await it.next();
    await new Promise((r) => setTimeout(r, 300));
    // the node stopped once the window was spent: about 2 MiB / 80 KB series, not 200
    expect(produced).toBeGreaterThan(5);
    expect(produced).toBeLessThan(Math.ceil(STREAM_WINDOW_BYTES / 60_000) + 4);
    let n = 1;
    for (let r = await it.next(); !r.done; r = await it.next()) n++;
    expect(n).toBe(200);
    expect(produced).toBe(200);
  });

  it('refuses calls over the connection cap, while streams waiting for credit still finish', async () => {
    const storage = new MemorySearcher();
    storage.searchSeries = async function* () {
      for (let i = 0; i < 60; i++) yield series(i, 10_000); // several windows' worth
    };
    const server = await serveSelectRpc(storage, '127.0.0.1:0', { maxConcurrentCalls: 3 });
    const client = new SelectNodeClient({ address: server.address, maxConnections: 1 });
    cleanups.push(() => server.close(), () => client.close());
    const streams = [0, 1, 2].map(() => client.searchSeries(q(), never())[Symbol.asyncIterator]());
    for (const it of streams) await it.next(); // three calls running, each blocked on credit
    await expect(client.seriesCount(T, never())).rejects.toThrow(/3 calls running, the most the node takes/);
    for (const it of streams) {
      let n = 1;
      for (let r = await it.next(); !r.done; r = await it.next()) n++;
      expect(n).toBe(60);
    }
    expect(await client.seriesCount(T, never())).toBe(0);
  });

  it('a consumer leaving early cancels the search on the node', async () => {
    const storage = new MemorySearcher();
    let remote: AbortSignal | undefined;
    let finished = false;
    storage.searchSeries = async function* (_q, signal) {
      remote = signal;
      try {
        for (let i = 0; ; i++) yield series(i, 1000);
      } finally {
        finished = true;
      }
    };
    const { client } = await selectNode(storage);
    for await (const s of client.searchSeries(q(), never())) {
      expect(s.timestamps).toHaveLength(1000);
      break;
    }
    await waitFor(() => finished && remote?.aborted === true, 'the node stopped the search');
  });

  it('streams a series longer than the window and frame, bit-exact', async () => {
    const storage = new MemorySearcher();
    const big = series(7, 300_000);
    big.values[12345] = NaN;
    storage.searchSeries = async function* () {
      yield big;
      yield series(8, 3);
    };
    const { client } = await selectNode(storage);
    const got: SeriesSamples[] = [];
    for await (const s of client.searchSeries(q(), never())) got.push(s);
    expect(got.map((s) => s.timestamps.length)).toEqual([300_000, 3]);
    expect(Buffer.from(got[0]!.values.buffer).equals(Buffer.from(big.values.buffer))).toBe(true);
    expect(Array.from(got[0]!.timestamps)).toEqual(Array.from(big.timestamps));
    expect(got[0]!.labels).toEqual(big.labels);
  });

  it('an error after some series ends the stream with that error', async () => {
    const storage = new MemorySearcher();
    storage.searchSeries = async function* () {
      yield series(1, 10);
      throw new Error('part "p1" is corrupt');
    };
    const { client } = await selectNode(storage);
    const got: number[] = [];
    const err = await (async () => {
      for await (const s of client.searchSeries(q(), never())) got.push(s.timestamps.length);
    })().catch((e: unknown) => e);
    expect(got).toEqual([10]);
    expect((err as Error).message).toBe('part "p1" is corrupt');
  });

  it('a node that stops sending mid-stream times out with NodeUnavailableError', async () => {
    const storage = new MemorySearcher();
    let remote: AbortSignal | undefined;
    storage.searchSeries = async function* (_q, signal) {
      remote = signal;
      yield series(1, 10);
      await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const { client } = await selectNode(storage, { timeoutMs: 200 });
    const err = await (async () => {
      for await (const _ of client.searchSeries(q(), never()));
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as Error).message).toMatch(/sent nothing for searchSeries within 200 ms/);
    await waitFor(() => remote?.aborted === true, 'the node saw the cancellation');
  });
});

describe('addRows', () => {
  async function insertNode(opts: { maxFrameBytes?: number; dictionaryBytes?: number } = {}) {
    const storage = new MemorySearcher();
    let calls = 0;
    const counting: Inserter = {
      addRows: (t, rows) => {
        calls++;
        return storage.addRows(t, rows);
      },
    };
    const server = await serveInsertRpc(counting, '127.0.0.1:0', opts);
    const client = new InsertNodeClient({ address: server.address });
    cleanups.push(() => server.close(), () => client.close());
    return { storage, client, calls: () => calls };
  }

  const rowsOf = (series: number, from = 0, ts = 1000): MetricRow[] =>
    Array.from({ length: series }, (_, i) => ({ labels: ls({ __name__: 'm', job: 'j', i: String(from + i), long: 'v'.repeat(40) }), timestamp: ts, value: from + i }));

  const stored = async (storage: MemorySearcher) => {
    const out = new Map<string, number[]>();
    for await (const s of storage.searchSeries(q(), never())) out.set(s.labels.find((l) => l.name === 'i')!.value, Array.from(s.values));
    return out;
  };

  it('splits a batch larger than the node accepts into several calls', async () => {
    const { storage, client, calls } = await insertNode({ maxFrameBytes: 16 * 1024 });
    await client.addRows(T, rowsOf(3000));
    expect(calls()).toBeGreaterThan(5);
    const got = await stored(storage);
    expect(got.size).toBe(3000);
    expect(got.get('2999')).toEqual([2999]);
  });

  it('keeps every row right across series dictionary resets', async () => {
    const { storage, client } = await insertNode({ dictionaryBytes: 8 * 1024 });
    for (let round = 0; round < 4; round++) {
      // known and new series mixed, more than the dictionary holds
      await client.addRows(T, [...rowsOf(200, 0, 1000 + round), ...rowsOf(50, 1000 * (round + 1), 1000 + round)]);
    }
    const got = await stored(storage);
    expect(got.size).toBe(200 + 4 * 50);
    expect(got.get('7')).toEqual([7, 7, 7, 7]);
    expect(got.get('3049')).toEqual([3049]);
  });

  it('stores keyed batches exactly, mixed with row calls, across frame splits and dictionary resets', async () => {
    const { storage, client } = await insertNode({ dictionaryBytes: 8 * 1024, maxFrameBytes: 16 * 1024 });
    const table = new SeriesKeyTable();
    for (let round = 0; round < 4; round++) {
      // The table grows as a parser's does; each round names old and new keys.
      const rows = rowsOf(300, 0, 1000 + round);
      for (let i = table.labels.length; i < 150 + 50 * round; i++) {
        table.labels.push(rows[i]!.labels);
        table.rawKeys.push('');
      }
      const n = table.labels.length;
      const keys = Int32Array.from({ length: n }, (_, i) => n - 1 - i);
      const b = { length: n, keys, timestamps: new Float64Array(n).fill(1000 + round), values: Float64Array.from(keys), table };
      await client.addKeyedRows(T, b);
      await client.addRows(T, rowsOf(20, 1000 + round * 20, 1000 + round));
    }
    const got = await stored(storage);
    expect(got.size).toBe(300 + 80);
    expect(got.get('7')).toEqual([7, 7, 7, 7]);
    expect(got.get('299')).toEqual([299]);
    expect(got.get('1061')).toEqual([1061]);
  });

  it('holds back a connection with too many writes running instead of failing them', async () => {
    const storage = new MemorySearcher();
    let running = 0;
    let most = 0;
    const slow: Inserter = {
      addRows: async (t, rows) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        return storage.addRows(t, rows);
      },
    };
    const server = await serveInsertRpc(slow, '127.0.0.1:0', { maxConcurrentCalls: 2 });
    const client = new InsertNodeClient({ address: server.address });
    cleanups.push(() => server.close(), () => client.close());
    await Promise.all(Array.from({ length: 10 }, (_, k) => client.addRows(T, rowsOf(10, k * 10))));
    expect((await stored(storage)).size).toBe(100);
    expect(most).toBe(2);
  });

  it('pipelines concurrent calls on one connection', async () => {
    const { storage, client } = await insertNode();
    await Promise.all(Array.from({ length: 20 }, (_, k) => client.addRows(T, rowsOf(100, k * 100))));
    expect((await stored(storage)).size).toBe(2000);
  });
});
