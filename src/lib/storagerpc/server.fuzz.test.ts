// Fuzzing the RPC servers over real TCP connections: arbitrary bytes, before or after a valid
// handshake, never crash a server or disturb its other connections; bytes that break the protocol
// get one ERROR frame (request id 0, kind "protocol") and that connection is closed.

import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySearcher } from '../query/memory-searcher.ts';
import type { Inserter, MetricRow, Tenant } from '../storageapi/api.ts';
import { reader, readString, writeString } from './codec.ts';
import {
  E_PROTOCOL, finishFrame, M_ADD_ROWS, M_LABEL_NAMES, type Frame, FrameDecoder, MAGIC, newFrame, PROTOCOL_VERSION, SERVICE_INSERT, SERVICE_SELECT, T_ERROR, T_HELLO,
  T_HELLO_OK, T_RESULT, T_SERIES,
} from './frame.ts';
import { InsertNodeClient, SelectNodeClient, serveInsertRpc, serveSelectRpc, type RpcServer } from './index.ts';


const storage = new MemorySearcher();
let insert: RpcServer;
let select: RpcServer;
let selectClient: SelectNodeClient;
beforeAll(async () => {
  insert = await serveInsertRpc(storage, '127.0.0.1:0', { maxFrameBytes: 64 * 1024 });
  select = await serveSelectRpc(storage, '127.0.0.1:0');
  // A connection opened before the fuzzing, used after it: other connections are never disturbed.
  selectClient = new SelectNodeClient({ address: select.address, maxConnections: 1 });
  expect(await selectClient.seriesCount({ accountID: 0, projectID: 0 }, new AbortController().signal)).toBe(0);
});
afterAll(async () => {
  await selectClient?.close();
  await insert?.close();
  await select?.close();
});

function hello(service: number): Buffer {
  const w = newFrame(T_HELLO, 0);
  w.writeBytes(Buffer.from(MAGIC, 'latin1'));
  w.writeUvarint(1);
  w.writeUvarint(PROTOCOL_VERSION);
  w.writeU8(service);
  writeString(w, 'fuzzer');
  return finishFrame(w);
}

interface Exchange {
  readonly frames: Frame[];
  readonly protocolError: string | undefined;
  /** closedByServer: the server ended the connection before the client did. */
  readonly closedByServer: boolean;
}

/** exchange sends bytes on a fresh connection, then waits for the server to close it or go quiet. */
function exchange(address: string, bytes: Buffer): Promise<Exchange> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host: host!, port: Number(port) });
    const frames: Frame[] = [];
    let protocolError: string | undefined;
    let undecodable = false;
    let closedByServer = false;
    const decoder = new FrameDecoder(1 << 24);
    let quiet: NodeJS.Timeout | undefined;
    // After a protocol error the server must close the connection: wait for that as long as it
    // takes on a loaded machine; otherwise a silence of 300 ms ends the exchange.
    const settle = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => socket.destroy(), protocolError === undefined ? 300 : 10_000);
    };
    socket.on('data', (chunk: Buffer) => {
      try {
        decoder.push(chunk, (f) => {
          frames.push({ ...f, buf: Buffer.from(f.buf) });
          if (f.type === T_ERROR && f.id === 0) {
            const r = reader(Buffer.from(f.buf), 'error', f.bodyStart);
            if (r.readU8() === E_PROTOCOL) protocolError = readString(r);
          }
        });
      } catch {
        undecodable = true;
      }
      settle();
    });
    socket.on('end', () => (closedByServer = true));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(quiet);
      expect(undecodable, 'the server sent bytes that are not frames').toBe(false);
      resolve({ frames, protocolError, closedByServer });
    });
    socket.on('connect', () => {
      socket.write(bytes);
      settle();
    });
  });
}

const serverTypes = new Set([T_HELLO_OK, T_RESULT, T_ERROR, T_SERIES]);

function checkExchange(x: Exchange): void {
  for (const f of x.frames) expect(serverTypes.has(f.type), `frame type 0x${f.type.toString(16)}`).toBe(true);
  const errorAt = x.frames.findIndex((f) => f.type === T_ERROR && f.id === 0);
  if (errorAt >= 0) {
    // a protocol error is the last frame of the connection, and the server closed it
    expect(errorAt).toBe(x.frames.length - 1);
    expect(x.protocolError).toMatch(/\S/);
    expect(x.closedByServer).toBe(true);
  }
}

// Valid framing with arbitrary types, ids and bodies: exercises every dispatch path.
const frameBytes = fc.record({ type: fc.constantFrom(1, 2, 3, 4, 0x81, 0, 0x7f), id: fc.nat({ max: 5 }), body: fc.uint8Array({ maxLength: 80 }) })
  .map(({ type, id, body }) => {
    const w = newFrame(type, id, body.length);
    w.writeBytes(body);
    return finishFrame(w);
  });
// CALL frames with a known method number and arbitrary arguments.
function callFrame(id: number, method: number, body: Uint8Array): Buffer {
  const w = newFrame(2, id, body.length + 2);
  w.writeU8(method);
  w.writeUvarint(0);
  w.writeBytes(body);
  return finishFrame(w);
}
const callBytes = fc.record({ id: fc.integer({ min: 1, max: 5 }), method: fc.integer({ min: 0, max: 10 }), body: fc.uint8Array({ maxLength: 120 }) })
  .map(({ id, method, body }) => callFrame(id, method, body));

describe.each([
  { name: 'insert', service: SERVICE_INSERT, address: () => insert.address, foreignMethod: M_LABEL_NAMES },
  { name: 'select', service: SERVICE_SELECT, address: () => select.address, foreignMethod: M_ADD_ROWS },
])('$name server under hostile input', ({ service, address, foreignMethod }) => {
  it('answers garbage before the handshake with a protocol error and closes only that connection', async () => {
    const x = await exchange(address(), Buffer.from('GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'));
    checkExchange(x);
    expect(x.protocolError).toMatch(/frame length \d+ is outside 2\.\.4096/);
  });

  it('never crashes on arbitrary bytes, with or without a handshake first', async () => {
    let refused = 0;
    let answered = 0;
    await fc.assert(fc.asyncProperty(
      fc.boolean(),
      fc.array(fc.oneof(fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)), frameBytes, callBytes), { maxLength: 6 }),
      async (handshake, parts) => {
        const x = await exchange(address(), Buffer.concat([...(handshake ? [hello(service)] : []), ...parts]));
        checkExchange(x);
        if (x.protocolError !== undefined) refused++;
        if (x.frames.some((f) => f.id !== 0)) answered++;
      },
    ), {
      numRuns: 60,
      // Random generation alone answered no call in one CI run: a handshake followed by a call
      // of the other service's method (answered with a per-call error) is always among the runs,
      // so the "answered" outcome is exercised by construction rather than by chance.
      examples: [[true, [callFrame(1, foreignMethod, new Uint8Array(0))]]],
    });
    // both outcomes occurred: connections refused for broken bytes, calls answered on the others
    expect(refused).toBeGreaterThan(10);
    expect(answered).toBeGreaterThan(0);
    // the server still serves new clients and the connection opened before
    const signal = new AbortController().signal;
    const q = { tenant: { accountID: 0, projectID: 0 }, matcherSets: [], timeRange: { minTimestamp: 0, maxTimestamp: 1 }, maxSeries: 0 };
    expect(await selectClient.labelNames(q, 0, signal)).toEqual(await storage.labelNames(q, 0, signal));
    const fresh = new InsertNodeClient({ address: insert.address });
    await fresh.addRows({ accountID: 0, projectID: 0 }, [{ labels: [{ name: '__name__', value: 'alive' }], timestamp: 1, value: 1 }]);
    await fresh.close();
  });
});
