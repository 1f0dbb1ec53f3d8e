import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { parseListenAddr } from '../../lib/httpserver/index.ts';
import type { Tenant } from '../../lib/storageapi/index.ts';
import { classifyInsertError } from './errors.ts';
import { openTsdbPut } from './formats.ts';
import { type FormatHandler, ingestBody, type InsertOptions } from './ingest.ts';
import type { ReceiverAddresses } from './flags.ts';

// node:http from the CommonJS side: an ES import of it builds its ES facade, which reads every
// export, and its lazy WebSocket getter loads Node's bundled undici, http2 and webcrypto, ~0.1
// CPU-seconds of every tsdb start (docs/DECISIONS.md, "Startup of the tsdb binaries").
const { createServer: createHttpServer } = process.getBuiltinModule('node:http');

/** Receivers are the optional network receivers (SPEC "Network receivers"), each off unless its flag is set. */
export interface Receivers {
  /** addresses lists the bound "host:port" of each receiver that runs. */
  readonly addresses: Readonly<Partial<Record<keyof ReceiverAddresses, string>>>;
  close(): Promise<void>;
}

// A line receiver's parser module is imported when that receiver starts (its flag is set), not with
// this file: most starts run no receiver (issue 18 item 4).
async function graphiteLines(): Promise<FormatHandler> {
  const { streamGraphite } = await import('../../lib/protoparser/graphite/index.ts');
  return async (i) => streamGraphite(i.body, { flushPerChunk: true, now: i.now, onBatch: i.onBatch });
}

async function opentsdbLines(): Promise<FormatHandler> {
  const { streamOpenTsdb } = await import('../../lib/protoparser/opentsdb/index.ts');
  return async (i) => streamOpenTsdb(i.body, { flushPerChunk: true, now: i.now, onBatch: i.onBatch });
}

/** startReceivers starts the Graphite and OpenTSDB receivers whose addresses are set. */
export async function startReceivers(addrs: ReceiverAddresses, o: InsertOptions, tenant: Tenant, enableTCP6: boolean): Promise<Receivers> {
  const closers: Array<() => Promise<void>> = [];
  const addresses: Partial<Record<keyof ReceiverAddresses, string>> = {};
  try {
    if (addrs.graphite !== '') {
      const r = await startLineReceiver(addrs.graphite, 'graphite', await graphiteLines(), o, tenant, enableTCP6);
      addresses.graphite = r.address;
      closers.push(r.close);
    }
    if (addrs.opentsdb !== '') {
      const r = await startLineReceiver(addrs.opentsdb, 'opentsdb', await opentsdbLines(), o, tenant, enableTCP6);
      addresses.opentsdb = r.address;
      closers.push(r.close);
    }
    if (addrs.opentsdbHTTP !== '') {
      const r = await startOpenTsdbHttp(addrs.opentsdbHTTP, o, tenant, enableTCP6);
      addresses.opentsdbHTTP = r.address;
      closers.push(r.close);
    }
  } catch (err) {
    for (const c of closers) await c();
    throw err;
  }
  return { addresses, close: async () => void (await Promise.all(closers.map((c) => c()))) };
}

async function listen(server: Server | HttpServer, addr: string, enableTCP6: boolean, what: string): Promise<string> {
  const { host, port } = parseListenAddr(addr, enableTCP6);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`cannot listen for ${what} on "${addr}": ${err.message}`, { cause: err })));
    server.listen(port, host, resolve);
  });
  const a = server.address() as AddressInfo;
  return `${a.address}:${a.port}`;
}

/**
 * startLineReceiver accepts long-lived TCP connections sending lines; rows are stored as each
 * chunk arrives. Bad lines are counted and logged per connection; they never close it.
 */
async function startLineReceiver(addr: string, type: string, handler: FormatHandler, o: InsertOptions, tenant: Tenant, enableTCP6: boolean) {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    ingestBody({ body: socket, contentEncoding: undefined, query: {} }, tenant, type, handler, o).catch((err: unknown) => {
      const e = classifyInsertError(err);
      if (e.status >= 500) o.logger.error({ err }, `cannot store ${type} rows from ${peer}`);
      else o.logger.warn(`${type} connection from ${peer}: ${e.message}`);
      socket.destroy();
    });
  });
  const address = await listen(server, addr, enableTCP6, type);
  return {
    address,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** startOpenTsdbHttp serves POST /api/put on its own address, as OpenTSDB HTTP clients expect. */
async function startOpenTsdbHttp(addr: string, o: InsertOptions, tenant: Tenant, enableTCP6: boolean) {
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/api/put') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`unsupported path requested: ${JSON.stringify(path)}; use POST /api/put`);
      return;
    }
    ingestBody({ body: req, contentEncoding: req.headers['content-encoding'], query: {} }, tenant, 'opentsdbhttp', openTsdbPut, o).then(
      () => res.writeHead(204).end(),
      (err: unknown) => {
        const e = classifyInsertError(err);
        if (e.status >= 500) o.logger.error({ err }, 'cannot store opentsdb http rows');
        res.writeHead(e.status, { 'content-type': 'text/plain', ...(req.complete ? {} : { connection: 'close' }) }).end(e.message);
      },
    );
  });
  const address = await listen(server, addr, enableTCP6, 'opentsdb http');
  return {
    address,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
