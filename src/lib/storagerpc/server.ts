// The node side of the storage RPC: accepts connections, runs the handshake, cuts frames, starts
// and cancels calls, pauses reading while a connection has too many calls running. A peer that
// breaks the protocol gets one ERROR frame (request id 0) and loses that connection only; nothing
// a client sends can throw out of here.

import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { parseListenAddr } from '../httpserver/listen-addr.ts';
import type { ByteReader } from '../bytes/index.ts';
import { CorruptDataError } from '../bytes/index.ts';
import { expectEnd, reader, readString, RpcProtocolError, writeString } from './codec.ts';
import { RpcCallError, writeError } from './errors-codec.ts';
import {
  E_BAD_REQUEST, E_PROTOCOL, E_UNAVAILABLE, finishFrame, type Frame, FrameDecoder, MAGIC, METHOD_NAMES, MIN_PROTOCOL_VERSION, newFrame,
  PROTOCOL_VERSION, SERVICE_NAMES, T_CALL, T_CANCEL, T_CREDIT, T_ERROR, T_HELLO, T_HELLO_OK,
} from './frame.ts';
import { serverMetrics } from './metrics.ts';
import type { RpcLogger, RpcServer } from './options.ts';
import { CANCELED, ServerCall } from './server-call.ts';

/** HELLO_TIMEOUT_MS: a connection that has not said HELLO by then is closed. */
const HELLO_TIMEOUT_MS = 10_000;
/** HELLO_MAX_FRAME_BYTES bounds what a peer may send before the handshake. */
const HELLO_MAX_FRAME_BYTES = 4096;
const EMPTY = Buffer.alloc(0);
/** CLOSE_GRACE_MS bounds how long close() waits for calls to send their last frame. */
const CLOSE_GRACE_MS = 10_000;

/**
 * ConnectionHandler serves the calls of one connection. prepare decodes the arguments from r
 * synchronously (the frame's bytes are valid only until it returns; decoding errors are protocol
 * errors) and returns the work, which ends the call with call.result or by throwing.
 */
export interface ConnectionHandler {
  prepare(call: ServerCall, r: ByteReader): () => Promise<void>;
}

/** Service describes one port: its number, frame limit, dictionary budget and per-connection handler. */
export interface Service {
  readonly id: number;
  readonly maxFrameBytes: number;
  /** dictionaryBytes is the series dictionary budget announced in HELLO_OK (0: the service has none). */
  readonly dictionaryBytes: number;
  /** methods served; any other method is answered with a bad-request error. */
  readonly methods: ReadonlySet<number>;
  connection(): ConnectionHandler;
}

export interface ServeOptions {
  readonly enableTCP6: boolean;
  readonly maxConcurrentCalls: number;
  /**
   * overload: what a connection at maxConcurrentCalls gets. "pause": the node stops reading it
   * until a call ends (TCP pushes back; only for services whose calls finish without further
   * frames from the client). "reject": more calls are answered kind unavailable, and CREDIT and
   * CANCEL frames keep flowing (streams waiting for credit would otherwise never finish).
   */
  readonly overload: 'pause' | 'reject';
  readonly logger: RpcLogger | undefined;
}

/** serve listens on listenAddr for the service. */
export async function serve(service: Service, listenAddr: string, o: ServeOptions): Promise<RpcServer> {
  const name = SERVICE_NAMES[service.id]!;
  serverMetrics(); // declared now, so /metrics lists them before the first call
  const conns = new Set<ServerConnection>();
  const server: Server = createServer((socket) => {
    const c = new ServerConnection(socket, service, o, () => conns.delete(c));
    conns.add(c);
  });
  const { host, port } = parseListenAddr(listenAddr, o.enableTCP6);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`cannot listen for ${name} RPC on "${listenAddr}": ${err.message}`, { cause: err })));
    server.listen(port, host, () => resolve());
  });
  server.on('error', (err) => o.logger?.error({ err }, `${name} RPC server error`));
  const a = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    address: `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    close: () => (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...conns].map((c) => c.shutDown()));
      await stopped;
    })()),
  };
}

class ServerConnection {
  readonly #socket: Socket;
  readonly #service: Service;
  readonly #o: ServeOptions;
  readonly #name: string;
  readonly #peer: string;
  readonly #decoder = new FrameDecoder(HELLO_MAX_FRAME_BYTES);
  readonly #calls = new Map<number, ServerCall>();
  readonly #onGone: () => void;
  #handler: ConnectionHandler | undefined;
  #client = '';
  #helloTimer: NodeJS.Timeout | undefined;
  // closing: the connection is going away, nothing more is read. draining: the node shuts down,
  // frames are still read (CANCEL, CREDIT) but new calls are refused.
  #closing = false;
  #draining = false;
  #paused = false;
  #corked = false;
  #idle: (() => void) | undefined;

  constructor(socket: Socket, service: Service, o: ServeOptions, onGone: () => void) {
    this.#socket = socket;
    this.#service = service;
    this.#o = o;
    this.#onGone = onGone;
    this.#name = SERVICE_NAMES[service.id]!;
    this.#peer = `${socket.remoteAddress}:${socket.remotePort}`;
    const m = serverMetrics();
    m.connections.inc({ service: this.#name });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    this.#helloTimer = setTimeout(() => this.#protocolError(new RpcProtocolError(`no HELLO within ${HELLO_TIMEOUT_MS} ms`)), HELLO_TIMEOUT_MS);
    this.#helloTimer.unref();
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', () => {}); // 'close' follows; a reset by the peer is not the node's problem
    socket.on('close', () => {
      clearTimeout(this.#helloTimer);
      m.connections.dec({ service: this.#name });
      this.#closing = true;
      for (const c of this.#calls.values()) c.abort(new RpcCallError(E_UNAVAILABLE, 'the connection was closed'));
      this.#onGone();
    });
  }

  #onData(chunk: Buffer): void {
    if (this.#closing) return;
    serverMetrics().received.inc({ service: this.#name }, chunk.length);
    this.#decode(chunk);
  }

  // decode feeds the decoder (an empty chunk: the frames it holds back). With overload "pause",
  // decoding stops at the frame that fills the last call slot; the rest waits in the decoder, and
  // the socket is paused, until a call ends.
  #decode(chunk: Buffer): void {
    try {
      this.#decoder.push(chunk, (f) => this.#onFrame(f) && !this.#full());
    } catch (err) {
      this.#protocolError(err);
      return;
    }
    if (!this.#paused && this.#full()) {
      this.#paused = true;
      this.#socket.pause();
    }
  }

  #full(): boolean {
    return this.#o.overload === 'pause' && this.#calls.size >= this.#o.maxConcurrentCalls;
  }

  #onFrame(f: Frame): boolean {
    if (this.#closing) return false;
    if (this.#handler === undefined) {
      if (f.type !== T_HELLO) throw new RpcProtocolError(`the first frame must be HELLO (0x01), got type 0x${f.type.toString(16)}: is this a Strata storage RPC client?`);
      this.#hello(reader(f.buf, 'HELLO frame', f.bodyStart));
      return true;
    }
    switch (f.type) {
      case T_CALL:
        this.#call(f);
        return true;
      case T_CANCEL: {
        const call = this.#calls.get(f.id);
        if (call !== undefined) call.abort(CANCELED);
        return true;
      }
      case T_CREDIT: {
        const r = reader(f.buf, 'CREDIT frame', f.bodyStart);
        const bytes = r.readUvarint();
        expectEnd(r);
        this.#calls.get(f.id)?.addCredit(bytes);
        return true;
      }
      default:
        throw new RpcProtocolError(`unknown frame type 0x${f.type.toString(16)}`);
    }
  }

  #hello(r: ByteReader): void {
    const magic = Buffer.from(r.readBytes(4)).toString('latin1');
    if (magic !== MAGIC) throw new RpcProtocolError(`bad HELLO magic ${JSON.stringify(magic)}: is this a Strata storage RPC client?`);
    const min = r.readUvarint();
    const max = r.readUvarint();
    const service = r.readU8();
    this.#client = readString(r);
    // Later versions may append HELLO fields: bytes after these are ignored.
    const version = Math.min(max, PROTOCOL_VERSION);
    if (version < Math.max(min, MIN_PROTOCOL_VERSION)) {
      throw new RpcProtocolError(`the client speaks protocol versions ${min}..${max}, this node ${MIN_PROTOCOL_VERSION}..${PROTOCOL_VERSION}`);
    }
    if (service !== this.#service.id) {
      const want = SERVICE_NAMES[service] ?? `unknown (${service})`;
      throw new RpcProtocolError(`this is the ${this.#name} port of the storage node; a client of the ${want} service must dial -${want}Addr`);
    }
    clearTimeout(this.#helloTimer);
    this.#decoder.maxFrameBytes = this.#service.maxFrameBytes;
    this.#handler = this.#service.connection();
    const w = newFrame(T_HELLO_OK, 0);
    w.writeUvarint(version);
    w.writeU8(this.#service.id);
    w.writeUvarint(this.#service.maxFrameBytes);
    w.writeUvarint(this.#service.dictionaryBytes);
    writeString(w, 'strata tsdb-storage');
    this.send(finishFrame(w));
  }

  #call(f: Frame): void {
    const r = reader(f.buf, 'CALL frame', f.bodyStart);
    const method = r.readU8();
    const timeoutMs = r.readUvarint();
    if (f.id === 0 || this.#calls.has(f.id)) throw new RpcProtocolError(`request id ${f.id} is ${f.id === 0 ? 'reserved' : 'already in use'}`);
    const call = new ServerCall(this, f.id, method, timeoutMs);
    const methodName = METHOD_NAMES[method] ?? `unknown_${method}`;
    const labels = { service: this.#name, method: METHOD_NAMES[method] === undefined ? 'unknown' : methodName };
    const m = serverMetrics();
    m.requests.inc(labels);
    if (!this.#service.methods.has(method)) {
      m.errors.inc(labels);
      const where = METHOD_NAMES[method] === undefined ? 'unknown to this node' : `not served on the ${this.#name} port`;
      call.fail(new RpcCallError(E_BAD_REQUEST, `method ${methodName} (${method}) is ${where}`));
      return;
    }
    if (this.#draining) {
      m.errors.inc(labels);
      call.fail(new RpcCallError(E_UNAVAILABLE, 'the storage node is shutting down'));
      return;
    }
    if (this.#o.overload === 'reject' && this.#calls.size >= this.#o.maxConcurrentCalls) {
      // With "pause", the frames of the chunk being read still start (a brief overshoot).
      m.errors.inc(labels);
      call.fail(new RpcCallError(E_UNAVAILABLE, `the connection has ${this.#calls.size} calls running, the most the node takes; retry later or spread calls over more connections`));
      return;
    }
    let run: () => Promise<void>;
    try {
      run = this.#handler!.prepare(call, r);
    } catch (err) {
      if (err instanceof RpcProtocolError || err instanceof CorruptDataError) throw new RpcProtocolError(`bad ${methodName} call ${f.id}: ${err.message}`, { cause: err });
      throw err;
    }
    this.#calls.set(f.id, call);
    void run().then(
      () => call.result(),
      (err: unknown) => {
        if (!call.cancelled) m.errors.inc(labels);
        call.fail(err);
      },
    ).catch((err: unknown) => {
      this.#o.logger?.error({ err }, `cannot answer ${methodName} call ${f.id} of ${this.#peer}`);
    }).finally(() => {
      m.duration.observe(labels, (performance.now() - call.started) / 1000);
      this.#calls.delete(f.id);
      if (this.#paused && !this.#full() && !this.#closing) {
        this.#paused = false;
        this.#socket.resume();
        this.#decode(EMPTY);
      }
      if (this.#calls.size === 0) this.#idle?.();
    });
  }

  /**
   * send queues frame. Frames sent within one turn of the event loop go out together (cork until
   * the next tick): a search streams its series as one frame each, many per turn, and a system
   * call per frame was the storage node's largest cost after the search itself.
   */
  send(frame: Buffer): void {
    if (this.#socket.destroyed || !this.#socket.writable) return;
    serverMetrics().sent.inc({ service: this.#name }, frame.length);
    if (!this.#corked) {
      this.#corked = true;
      this.#socket.cork();
      process.nextTick(this.#uncork);
    }
    this.#socket.write(frame);
  }

  readonly #uncork = () => {
    this.#corked = false;
    this.#socket.uncork();
  };

  writable(signal: AbortSignal): Promise<void> {
    if (!this.#socket.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        this.#socket.off('drain', done);
        this.#socket.off('close', done);
        signal.removeEventListener('abort', done);
        if (signal.aborted) reject(signal.reason);
        else resolve();
      };
      this.#socket.on('drain', done);
      this.#socket.on('close', done);
      signal.addEventListener('abort', done);
    });
  }

  #protocolError(err: unknown): void {
    if (this.#closing) return;
    const message = err instanceof Error ? err.message : String(err);
    serverMetrics().protocolErrors.inc({ service: this.#name });
    this.#o.logger?.warn({ peer: this.#peer, client: this.#client }, `closing ${this.#name} RPC connection from ${this.#peer}: ${message}`);
    const w = newFrame(T_ERROR, 0);
    writeError(w, new RpcCallError(E_PROTOCOL, message));
    this.send(finishFrame(w));
    this.#closing = true;
    for (const c of this.#calls.values()) c.abort(new RpcCallError(E_UNAVAILABLE, 'the connection was closed after a protocol error'));
    this.#socket.end();
    setTimeout(() => this.#socket.destroy(), 1000).unref();
  }

  /** shutDown refuses new calls, aborts running ones (writes in progress still finish), waits for their last frames, closes. */
  async shutDown(): Promise<void> {
    this.#draining = true;
    const reason = new RpcCallError(E_UNAVAILABLE, 'the storage node is shutting down');
    for (const c of this.#calls.values()) c.abort(reason);
    if (this.#calls.size > 0) {
      if (this.#paused) this.#socket.resume();
      await new Promise<void>((resolve) => {
        this.#idle = resolve;
        setTimeout(resolve, CLOSE_GRACE_MS).unref();
      });
    }
    this.#closing = true;
    await new Promise<void>((resolve) => {
      if (this.#socket.destroyed) return resolve();
      this.#socket.once('close', () => resolve());
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), 1000).unref();
    });
  }
}
